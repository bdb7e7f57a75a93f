import type { ConversionJob } from './job.ts'
import { runJob } from './run-job.ts'

/**
 * A converter process of the pool (pool.ts), started with `node --max-old-space-size=<MB>` and an IPC
 * channel: it says `ready` once it listens (a message sent before would be lost), then converts one
 * job at a time, each answered with its output, or its failure with its code. A page that needs more
 * memory ends this process only (V8 aborts it), whatever the shape of the allocation. When the host
 * goes, the channel closes and nothing keeps this process alive: it ends after the job in hand.
 */
export type ChildMessage = { readonly ready: true } | ChildReply

export type ChildReply = { readonly ready?: undefined; readonly ok: true; readonly output: string } | { readonly ready?: undefined; readonly ok: false; readonly message: string; readonly code?: string }

const send = process.send?.bind(process)
if (!send) throw new Error('dsh-tool-web: the conversion child runs as a child process with an IPC channel only')

process.on('message', (job: ConversionJob) => {
  runJob(job).then(
    (output) => send({ ok: true, output } satisfies ChildMessage),
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code
      send({ ok: false, message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) } satisfies ChildMessage)
    },
  )
})
send({ ready: true } satisfies ChildMessage)

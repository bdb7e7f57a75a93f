import { watchHost } from './host-watch.ts'
import type { ConversionJob, Converted } from './job.ts'

/** What a converter process says: `ready` once it listens (a message sent before would be lost), then one reply per job. */
export type ChildMessage = { readonly ready: true } | ChildReply

export type ChildReply = { readonly ready?: undefined; readonly ok: true; readonly output: string; readonly cut?: true } | { readonly ready?: undefined; readonly ok: false; readonly message: string; readonly code?: string }

/**
 * The main of a converter process of the pool (pool.ts): answers each job the IPC channel brings
 * with `convert`'s output, or its failure with its code, and ends when its host is gone, even in the
 * middle of a page (`watchHost`). When the host closes the channel between pages nothing keeps the
 * process alive and it ends by itself. `convert` is the package's `runJob` (conversion-child.ts); a
 * test names another.
 */
export function serveConversions(convert: (job: ConversionJob) => Promise<Converted>): void {
  const send = process.send?.bind(process)
  if (!send) throw new Error('dsh-tool-web: the conversion child runs as a child process with an IPC channel only')
  watchHost()
  process.on('message', (job: ConversionJob) => {
    convert(job).then(
      (converted) => send({ ok: true, output: converted.text, ...(converted.cut ? { cut: true } : {}) } satisfies ChildMessage),
      (error: unknown) => {
        const code = (error as { code?: unknown } | null)?.code
        send({ ok: false, message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) } satisfies ChildMessage)
      },
    )
  })
  send({ ready: true } satisfies ChildMessage)
}

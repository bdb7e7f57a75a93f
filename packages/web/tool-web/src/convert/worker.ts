import { parentPort } from 'node:worker_threads'
import type { ConversionJob } from './job.ts'
import { runJob } from './run-job.ts'

/** A conversion worker of the pool (pool.ts): one job at a time, each answered with its output, or its failure with its code. */
export type WorkerReply = { readonly ok: true; readonly output: string } | { readonly ok: false; readonly message: string; readonly code?: string }

const port = parentPort
if (!port) throw new Error('dsh-tool-web: the conversion worker runs in a worker thread only')
port.on('message', (job: ConversionJob) => {
  runJob(job).then(
    (output) => port.postMessage({ ok: true, output } satisfies WorkerReply),
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code
      port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) } satisfies WorkerReply)
    },
  )
})

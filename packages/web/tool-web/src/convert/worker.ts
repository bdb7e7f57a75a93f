import { parentPort } from 'node:worker_threads'
import { runJob, type ConversionJob } from './job.ts'

/** A conversion worker of the pool (pool.ts): one job at a time, each answered with its output. */
export type WorkerReply = { readonly ok: true; readonly output: string } | { readonly ok: false; readonly message: string }

const port = parentPort
if (!port) throw new Error('dsh-tool-web: the conversion worker runs in a worker thread only')
port.on('message', (job: ConversionJob) => {
  let reply: WorkerReply
  try {
    reply = { ok: true, output: runJob(job) }
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})

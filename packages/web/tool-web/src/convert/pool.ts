import { channel } from 'node:diagnostics_channel'
import type { Worker } from 'node:worker_threads'
import { errorFromReason, HarnessError, type Lifetime } from 'dsh-core'
import type { ConversionJob } from './job.ts'
import type { WorkerReply } from './worker.ts'

export interface ConversionPoolSettings {
  /** Most workers alive at once; jobs beyond them wait, first come first served. */
  readonly workers: number
  /** Each worker's V8 old-generation limit: a page that needs more fails with WEB_CONVERSION_FAILED. */
  readonly maxMemoryMb: number
  /** The worker's module; the package's own by default (tests name a different one). */
  readonly entry?: URL
}

/**
 * What the pool does, published on the diagnostics channel `dsh-tool-web:conversion` (no cost when
 * nobody subscribes): a worker started (`spawn`) or ended (`exit`); a job began (`start`) or
 * answered (`end`) on a worker; a running job was abandoned and its worker terminated (`terminate`).
 */
export interface ConversionEvent {
  readonly event: 'spawn' | 'start' | 'end' | 'terminate' | 'exit'
  readonly threadId: number
}

export const conversionEvents = channel('dsh-tool-web:conversion')

interface Pending {
  readonly job: ConversionJob
  readonly resolve: (output: string) => void
  readonly reject: (error: Error) => void
  stopListening: () => void
  worker?: Worker
}

const OWN_WORKER = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url)

/**
 * Conversions off the event loop: a small pool of worker threads, started on demand and kept
 * (unreferenced while idle, so they never keep a process alive). A job follows its caller's
 * lifetime: when that aborts (the call's deadline, the caller's abort), a waiting job leaves the
 * queue and a running one's worker is terminated — a conversion cannot be interrupted any other
 * way — and the next job gets a fresh worker. `close()` terminates every worker.
 */
export class ConversionPool {
  private readonly idle: Worker[] = []
  private readonly running = new Map<Worker, Pending>()
  private readonly queue: Pending[] = []
  private readonly exited = new Map<Worker, Promise<void>>()
  /** Each worker's thread id, kept: `worker.threadId` reads -1 once it has exited. */
  private readonly threadIds = new WeakMap<Worker, number>()
  private closed = false

  constructor(private readonly settings: ConversionPoolSettings) {}

  /** Workers alive now (idle or busy). */
  get size(): number {
    return this.exited.size
  }

  convert(job: ConversionJob, lifetime: Lifetime): Promise<string> {
    if (this.closed) return Promise.reject(new HarnessError('the web tools were unloaded', 'DISPOSED'))
    if (lifetime.aborted) return Promise.reject(errorFromReason(lifetime.reason))
    return new Promise<string>((resolve, reject) => {
      const pending: Pending = { job, resolve, reject, stopListening: () => {} }
      pending.stopListening = lifetime.onAbort((reason) => this.abandon(pending, errorFromReason(reason)))
      this.queue.push(pending)
      this.dispatch()
    })
  }

  /** Terminates every worker and fails what waits; resolves once every worker has exited. */
  async close(): Promise<void> {
    this.closed = true
    const disposed = new HarnessError('the web tools were unloaded', 'DISPOSED')
    for (const pending of this.queue.splice(0)) this.settle(pending, disposed)
    for (const [worker, pending] of this.running) {
      this.running.delete(worker)
      this.settle(pending, disposed)
    }
    this.idle.length = 0
    const exits = [...this.exited.values()]
    for (const worker of this.exited.keys()) void worker.terminate()
    await Promise.all(exits)
  }

  private dispatch(): void {
    while (this.queue.length && !this.closed) {
      const worker = this.idle.pop() ?? (this.exited.size < this.settings.workers ? this.spawn() : undefined)
      if (!worker) return
      const pending = this.queue.shift()!
      pending.worker = worker
      this.running.set(worker, pending)
      // Busy, it keeps the process alive as the call it serves does.
      worker.ref()
      worker.postMessage(pending.job)
      this.publish('start', worker)
    }
  }

  private spawn(): Worker {
    const worker = startWorker(this.settings.entry ?? OWN_WORKER, this.settings.maxMemoryMb)
    this.threadIds.set(worker, worker.threadId)
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    this.exited.set(worker, exited)
    worker.on('message', (reply: WorkerReply) => this.answered(worker, reply))
    // An uncaught failure in the worker (out of memory, a module that does not load): it exits next.
    worker.on('error', (error) => this.failed(worker, error))
    worker.once('exit', () => this.gone(worker))
    this.publish('spawn', worker)
    return worker
  }

  private answered(worker: Worker, reply: WorkerReply): void {
    const pending = this.running.get(worker)
    if (!pending) return
    this.running.delete(worker)
    this.publish('end', worker)
    if (reply.ok) this.settle(pending, undefined, reply.output)
    // A coded failure (a PDF that is encrypted, has no text, cannot be read) reaches the caller as it is.
    else this.settle(pending, reply.code ? new HarnessError(reply.message, reply.code) : new HarnessError(`the page could not be converted: ${reply.message}`, 'WEB_CONVERSION_FAILED'))
    if (this.closed) return
    worker.unref()
    this.idle.push(worker)
    this.dispatch()
  }

  private failed(worker: Worker, error: Error): void {
    const pending = this.running.get(worker)
    if (!pending) return
    this.running.delete(worker)
    const reason = (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needs more than the converter's ${this.settings.maxMemoryMb} MB` : error.message
    this.settle(pending, new HarnessError(`the page could not be converted: ${reason}`, 'WEB_CONVERSION_FAILED'))
  }

  private gone(worker: Worker): void {
    this.exited.delete(worker)
    const at = this.idle.indexOf(worker)
    if (at >= 0) this.idle.splice(at, 1)
    const pending = this.running.get(worker)
    if (pending) {
      this.running.delete(worker)
      this.settle(pending, new HarnessError('the page could not be converted: the converter exited', 'WEB_CONVERSION_FAILED'))
    }
    this.publish('exit', worker)
    this.dispatch()
  }

  /** The caller gave up: out of the queue, or its worker terminated (a replacement starts on demand). */
  private abandon(pending: Pending, error: Error): void {
    const queued = this.queue.indexOf(pending)
    if (queued >= 0) this.queue.splice(queued, 1)
    const worker = pending.worker
    if (worker && this.running.get(worker) === pending) {
      this.running.delete(worker)
      this.publish('terminate', worker)
      void worker.terminate()
    }
    this.settle(pending, error)
  }

  private settle(pending: Pending, error: Error | undefined, output = ''): void {
    pending.stopListening()
    if (error) pending.reject(error)
    else pending.resolve(output)
  }

  private publish(event: ConversionEvent['event'], worker: Worker): void {
    if (conversionEvents.hasSubscribers) conversionEvents.publish({ event, threadId: this.threadIds.get(worker) ?? -1 } satisfies ConversionEvent)
  }
}

function startWorker(entry: URL, maxMemoryMb: number): Worker {
  // Loaded with the first worker: a process that converts no page (`dsh tools`) never needs it.
  const { Worker } = process.getBuiltinModule('node:worker_threads')
  const options = { resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } }
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options)
  // Running from the TypeScript sources (tests, benches, a fresh clone's `pnpm start`): the worker
  // loads them through tsx, as bin/dsh.mjs does; module hooks are not inherited by workers.
  const tsx = import.meta.resolve('tsx/esm/api')
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(boot, { ...options, eval: true })
}

import { channel } from 'node:diagnostics_channel'
import { errorFromReason, errorMessage, HarnessError, type ChildHandle, type Exit, type Lifetime, type SpawnSpec } from 'dsh-core'
import type { ChildMessage, ChildReply } from './converter-main.ts'
import type { ConversionJob, Converted } from './job.ts'
import { converterSpawn } from './converter-spawn.ts'

export interface ConversionPoolSettings {
  /** How a converter process starts: `ctx.subprocess.spawn` (the only way a package starts a process). */
  readonly spawn: (spec: SpawnSpec) => ChildHandle
  /** Most converter processes alive at once; jobs beyond them wait, first come first served. */
  readonly workers: number
  /** Each converter's V8 heap limit (`--max-old-space-size`): a page that needs more fails with WEB_CONVERSION_FAILED. */
  readonly maxMemoryMb: number
  /** The converter's module; the package's own by default (tests name a different one). */
  readonly entry?: URL
}

/**
 * What the pool does, published on the diagnostics channel `dsh-tool-web:conversion` (no cost when
 * nobody subscribes): a converter process started (`spawn`) or ended (`exit`); a job was given to one
 * (`start`, sent as soon as it is ready) or answered (`end`); a running job was abandoned and its process killed (`terminate`).
 */
export interface ConversionEvent {
  readonly event: 'spawn' | 'start' | 'end' | 'terminate' | 'exit'
  /** The converter process's id. */
  readonly pid: number
}

export const conversionEvents = channel('dsh-tool-web:conversion')

interface Pending {
  readonly job: ConversionJob
  readonly resolve: (output: Converted) => void
  readonly reject: (error: Error) => void
  stopListening: () => void
  converter?: Converter
}

/** One converter process and what the pool knows of it. */
interface Converter {
  readonly child: ChildHandle
  /** Resolves once it has ended (its stderr read to the end) and the pool let go of it. */
  readonly exited: Promise<void>
  /** It listens for jobs (its `ready` came): a job sent before would be lost. */
  ready: boolean
  /** The job it converts, or is about to once ready. */
  job: Pending | undefined
}

const OWN_CHILD = new URL(import.meta.url.endsWith('.ts') ? './conversion-child.ts' : './conversion-child.js', import.meta.url)
/**
 * Conversions off the event loop and out of the host's heap: a small pool of converter processes
 * (`node --max-old-space-size`), started on demand and kept (unreferenced while idle, so they never
 * keep a process alive). A process, not a worker thread: a worker's `resourceLimits` does not
 * always end only the worker — some allocation shapes abort the whole process (nodejs/node#47224)
 * — while a child's death, whatever its cause (out of memory, a crash, a kill), fails the one call it
 * served with WEB_CONVERSION_FAILED and the next job gets a fresh process. A job follows its
 * caller's lifetime: when that aborts (the call's deadline, the caller's abort), a waiting job leaves
 * the queue and a running one's process is killed — a conversion cannot be interrupted any other way.
 * `close()` kills every process and resolves once all have exited.
 */
export class ConversionPool {
  private readonly converters = new Set<Converter>()
  private readonly idle: Converter[] = []
  private readonly queue: Pending[] = []
  private closed = false

  constructor(private readonly settings: ConversionPoolSettings) {}

  /** Converter processes alive now (starting, idle or busy). */
  get size(): number {
    return this.converters.size
  }

  convert(job: ConversionJob, lifetime: Lifetime): Promise<Converted> {
    if (this.closed) return Promise.reject(new HarnessError('the web tools were unloaded', 'DISPOSED'))
    if (lifetime.aborted) return Promise.reject(errorFromReason(lifetime.reason))
    return new Promise<Converted>((resolve, reject) => {
      const pending: Pending = { job, resolve, reject, stopListening: () => {} }
      pending.stopListening = lifetime.onAbort((reason) => this.abandon(pending, errorFromReason(reason)))
      this.queue.push(pending)
      this.dispatch()
    })
  }

  /** Kills every converter and fails what waits; resolves once every converter process has exited. */
  async close(): Promise<void> {
    this.closed = true
    const disposed = new HarnessError('the web tools were unloaded', 'DISPOSED')
    for (const pending of this.queue.splice(0)) this.settle(pending, disposed)
    this.idle.length = 0
    const exits: Promise<void>[] = []
    for (const converter of this.converters) {
      const pending = converter.job
      converter.job = undefined
      if (pending) this.settle(pending, disposed)
      // Referenced again, an idle one too: the host waits for the exit it awaits.
      converter.child.keepsHostAlive(true)
      converter.child.killNow()
      exits.push(converter.exited)
    }
    await Promise.all(exits)
  }

  private dispatch(): void {
    while (this.queue.length && !this.closed) {
      let converter: Converter | undefined
      try {
        converter = this.idle.pop() ?? (this.converters.size < this.settings.workers ? this.spawn() : undefined)
      } catch (error) {
        // The subprocess service refused (it is shutting down): what waits cannot be converted.
        for (const pending of this.queue.splice(0)) this.settle(pending, new HarnessError(`the page could not be converted: ${errorMessage(error)}`, 'WEB_CONVERSION_FAILED', { cause: error }))
        return
      }
      if (!converter) return
      const pending = this.queue.shift()!
      pending.converter = converter
      converter.job = pending
      // Busy, it keeps the process alive as the call it serves does.
      converter.child.keepsHostAlive(true)
      this.publish('start', converter)
      if (converter.ready) this.send(converter, pending)
    }
  }

  private spawn(): Converter {
    const child = this.settings.spawn(converterSpawn(this.settings.entry ?? OWN_CHILD, this.settings.maxMemoryMb))
    // A spawn that failed has no channel; its `exited` (with the error) comes all the same.
    const converter: Converter = { child, exited: child.exited.then((exit) => this.gone(converter, exit)), ready: false, job: undefined }
    this.converters.add(converter)
    child.ipc?.onMessage((message) => ((message as ChildMessage).ready ? this.readied(converter) : this.answered(converter, message as ChildReply)))
    this.publish('spawn', converter)
    return converter
  }

  private readied(converter: Converter): void {
    converter.ready = true
    if (converter.job) this.send(converter, converter.job)
  }

  private send(converter: Converter, pending: Pending): void {
    // A channel already closed: the process is on its way out, and its exit fails the job.
    converter.child.ipc?.send(pending.job).catch(() => converter.child.killNow())
  }

  private answered(converter: Converter, reply: ChildReply): void {
    const pending = converter.job
    if (!pending) return
    converter.job = undefined
    this.publish('end', converter)
    if (reply.ok) this.settle(pending, undefined, reply.cut ? { text: reply.output, cut: true } : { text: reply.output })
    // A coded failure (a PDF that is encrypted, has no text, cannot be read) reaches the caller as it is.
    else this.settle(pending, reply.code ? new HarnessError(reply.message, reply.code) : new HarnessError(`the page could not be converted: ${reply.message}`, 'WEB_CONVERSION_FAILED'))
    if (this.closed) return
    converter.child.keepsHostAlive(false)
    this.idle.push(converter)
    this.dispatch()
  }

  /** `exited` comes once its stderr is read to the end, V8's out-of-memory report included. */
  private gone(converter: Converter, exit: Exit): void {
    if (!this.converters.delete(converter)) return
    const at = this.idle.indexOf(converter)
    if (at >= 0) this.idle.splice(at, 1)
    const pending = converter.job
    if (pending) {
      converter.job = undefined
      this.settle(pending, new HarnessError(`the page could not be converted: ${this.deathOf(converter, exit)}`, 'WEB_CONVERSION_FAILED'))
    }
    this.publish('exit', converter)
    this.dispatch()
  }

  private deathOf(converter: Converter, exit: Exit): string {
    if (exit.error) return `the converter could not be started: ${exit.error.message}`
    if (/heap out of memory|Reached heap limit/.test(converter.child.stderrTail())) return `it needs more than the converter's ${this.settings.maxMemoryMb} MB`
    return `the converter exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`
  }

  /** The caller gave up: out of the queue, or its converter killed (a replacement starts on demand). */
  private abandon(pending: Pending, error: Error): void {
    const queued = this.queue.indexOf(pending)
    if (queued >= 0) this.queue.splice(queued, 1)
    const converter = pending.converter
    if (converter && converter.job === pending) {
      converter.job = undefined
      this.publish('terminate', converter)
      converter.child.killNow()
    }
    this.settle(pending, error)
  }

  private settle(pending: Pending, error: Error | undefined, output: Converted = { text: '' }): void {
    pending.stopListening()
    if (error) pending.reject(error)
    else pending.resolve(output)
  }

  private publish(event: ConversionEvent['event'], converter: Converter): void {
    if (conversionEvents.hasSubscribers) conversionEvents.publish({ event, pid: converter.child.pid } satisfies ConversionEvent)
  }
}

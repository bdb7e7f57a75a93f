import { stat, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'

/** Told when the awaited entry appears (or may have), or when watching for it broke. */
export interface AppearanceListener {
  appeared(): void
  failed(error: unknown): void
}

export interface AppearanceOptions {
  readonly usePolling: boolean
  readonly pollIntervalMs: number
}

/** One directory's OS watch and the entry names waited for in it. */
interface Directory {
  readonly handle: FSWatcher
  readonly waiting: Map<string, Set<AppearanceListener>>
}

/** One awaited path's stat poll, the listeners waiting for it and those already told. */
interface Polled {
  readonly timer: NodeJS.Timeout
  readonly listeners: Set<AppearanceListener>
  readonly told: WeakSet<AppearanceListener>
}

/**
 * Waits for missing path segments to appear: `.dsh` in a package directory, `skills` in a new
 * `.dsh`. One plain OS watch per directory, whatever number of roots wait in it (a directory's
 * `.dsh`, `.agents` and `.claude` roots share it), and no listing, stat or realpath: a chain of
 * 1,000 package directories costs 1,000 watches, not 3,000 chokidar watchers each scanning its
 * directory (issue 33 item 4). With polling, each awaited path is stat-polled instead: a path the
 * caller has just seen missing is told once it exists. (Not fs.watchFile: its first stat, taken later
 * on the thread pool, is its baseline, so an entry created just after the watch started was never told.)
 */
export class AppearanceWatches {
  private readonly directories = new Map<string, Directory>()
  private readonly polled = new Map<string, Polled>()

  constructor(private readonly options: AppearanceOptions) {}

  /** Waits for `name` to appear in `directory`; throws when the directory cannot be watched (ENOSPC…). Returns the stop. */
  watch(directory: string, name: string, listener: AppearanceListener): () => void {
    return this.options.usePolling ? this.poll(join(directory, name), listener) : this.listen(directory, name, listener)
  }

  /** How many OS watches and polled paths are open. */
  get size(): number {
    return this.directories.size + this.polled.size
  }

  close(): void {
    for (const directory of this.directories.values()) directory.handle.close()
    this.directories.clear()
    for (const polled of this.polled.values()) clearInterval(polled.timer)
    this.polled.clear()
  }

  private listen(path: string, name: string, listener: AppearanceListener): () => void {
    let directory = this.directories.get(path)
    if (!directory) {
      const waiting = new Map<string, Set<AppearanceListener>>()
      const handle = watch(path, { persistent: true }, (_event, filename) => {
        // Without a name the change may be the awaited one.
        const told = filename === null ? [...waiting.values()].flatMap((set) => [...set]) : [...(waiting.get(filename) ?? [])]
        for (const each of told) each.appeared()
      })
      // For the handle's whole life: an 'error' without a listener would be thrown.
      handle.on('error', (error) => {
        if (this.directories.get(path)?.handle !== handle) return
        this.directories.delete(path)
        handle.close()
        for (const set of waiting.values()) for (const each of set) each.failed(error)
      })
      this.directories.set(path, (directory = { handle, waiting }))
    }
    const { waiting, handle } = directory
    let set = waiting.get(name)
    if (!set) waiting.set(name, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size) return
      waiting.delete(name)
      if (waiting.size || this.directories.get(path)?.handle !== handle) return
      this.directories.delete(path)
      handle.close()
    }
  }

  private poll(path: string, listener: AppearanceListener): () => void {
    let polled = this.polled.get(path)
    if (!polled) {
      const listeners = new Set<AppearanceListener>()
      const told = new WeakSet<AppearanceListener>()
      let looking = false
      const timer = setInterval(() => {
        if (looking) return
        looking = true
        stat(path, (error) => {
          looking = false
          // Still missing, or not ours to say (EACCES…): the next tick looks again.
          if (error || this.polled.get(path)?.timer !== timer) return
          for (const each of [...listeners]) {
            if (told.has(each)) continue
            told.add(each)
            each.appeared()
          }
        })
      }, this.options.pollIntervalMs)
      this.polled.set(path, (polled = { timer, listeners, told }))
    }
    const { timer, listeners } = polled
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
      if (listeners.size || this.polled.get(path)?.timer !== timer) return
      this.polled.delete(path)
      clearInterval(timer)
    }
  }
}

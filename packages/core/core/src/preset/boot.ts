import { resolve } from 'node:path'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { Lifetime } from '../lifetime/lifetime.ts'
import { MAX_TIMER_DELAY_MS } from '../abort.ts'
import { errorMessage, isHarnessError } from '../errors.ts'
import type { HostLifetime } from '../host.ts'
import type { TrustHook } from '../trust/service.ts'
import { stopHost } from '../lifetime.ts'
import { PresetError } from './errors.ts'
import { withOrigin } from './origin.ts'
import { containStrayRejections, strayOrigin } from './strays.ts'
import { loadRow, locatePlugins, rowLabel, type LoadedRow } from './load.ts'
import { applyOverlay, enabledRows, everyPluginRow, parseRows, readRows, type PresetRow } from './rows.ts'

export interface BootOptions {
  /** Path of the preset file. */
  readonly preset: string
  /**
   * The preset is one a package ships beside its parsed twin (`presetTwin`, `<file>.json`), which is
   * read instead of parsing the YAML while it was made from exactly the file's text. Only for presets
   * nobody is expected to review: next to a file the user names and reads (a repository's preset, an
   * overlay), a twin would change what runs without showing in the YAML. Default false.
   */
  readonly presetTwin?: boolean
  /** Overlay files applied on top, in order (never read through a twin). */
  readonly overlays?: readonly string[]
  /** Aborting stops whatever started and rejects with `PRESET_BOOT_ABORTED`. */
  readonly signal?: AbortSignal
  /**
   * How long the rows may take to apply (an MCP server's first discovery happens here); past it the
   * boot fails with `PRESET_PLUGIN_TIMEOUT` naming the row still starting. Default 120 s.
   */
  readonly startTimeoutMs?: number
  /** Told to every plugin as `ctx.dshHost.lifetime` (see `hostLifetime`). Default `long-lived`. */
  readonly lifetime?: HostLifetime
  /** Told to every plugin as `ctx.dshHost.workspace` (see `hostWorkspace`). Default the process directory. */
  readonly workspace?: string
  /**
   * While the host runs, log an unhandled promise rejection (naming the row whose code raised it)
   * instead of letting it end the process. Default: on for a long-lived host, off for a one-shot one.
   * A process that has its own policy for stray failures (the `dsh` command) turns it off.
   */
  readonly containStrayRejections?: boolean
  /** Told to the trust service as `ctx.dshHost.askTrust`: how to ask the user about an untrusted workspace. Default: nobody to ask. */
  readonly askTrust?: TrustHook
  /** Told to every plugin as `ctx.dshHost.env` (see `hostEnv`). Default the process's environment. */
  readonly env?: NodeJS.ProcessEnv
}

export const DEFAULT_START_TIMEOUT_MS = 120_000

export interface Host {
  readonly app: Context
  readonly rows: readonly LoadedRow[]
  /**
   * Unloads the composition in reverse load order, waits for every asynchronous teardown (servers
   * told to shut down) and then for every child process group to be gone.
   */
  stop(): Promise<void>
  /** The row whose plugin code raised `error` (from its stack; see `strayOrigin`), for reports of stray failures. */
  originOf(error: unknown): LoadedRow | undefined
}

// cordis ScopeStatus values (a const enum in its typings).
const PENDING = 0
const LOADING = 1
const FAILED = 3

/**
 * Reads a preset and its overlays into the rows that will load. Never writes to any of the files.
 * `withDisabled`: also the rows a `disabled: true` turns off, marked so (for listings, never for a boot).
 */
export async function composePreset(options: BootOptions, { withDisabled = false }: { readonly withDisabled?: boolean } = {}): Promise<PresetRow[]> {
  // Absolute, because plugin paths and packages are resolved from each file's directory.
  const preset = resolve(options.preset)
  let rows = parseRows(await readRows(preset, 'preset', options.presetTwin ?? false), preset)
  for (const overlay of (options.overlays ?? []).map((file) => resolve(file))) rows = applyOverlay(rows, await readRows(overlay, 'overlay'), overlay)
  return withDisabled ? everyPluginRow(rows) : enabledRows(rows)
}

/**
 * Keeps the process alive until released (a ref'd timer that never fires). A boot bound's own timer
 * is unref'd, so a wait nothing else keeps alive (a plugin module whose top-level await never
 * settles, an apply that never does) would let Node end the process (exit 13, "unsettled top-level
 * await") before the bound fires and names the row. Released when the bounded wait settles, which
 * the bound guarantees; not timed itself, so it never depends on which of two timers fires first.
 */
function holdOpen(): () => void {
  const timer = setInterval(() => {}, MAX_TIMER_DELAY_MS)
  return () => clearInterval(timer)
}

/**
 * Boots a composition: every row's plugin is imported and its config validated before anything
 * applies, then the rows apply in order. A row that fails, or waits for a service no row provides,
 * fails the boot with a `PresetError` naming it, and whatever did start is stopped again.
 */
export async function bootPreset(options: BootOptions): Promise<Host> {
  const rows = await composePreset(options)
  const loaded: LoadedRow[] = []
  const loadedBy = new Map<Plugin, LoadedRow>()
  const paths = locatePlugins(rows)
  // Every row's module is requested at once, so Node's loader reads the files of later rows while it
  // compiles and runs earlier ones, instead of one row's files after another's (issue 27 item 5).
  // They are still taken in row order: the first bad row is the one reported, and a later row's
  // failure, never awaited then, is no unhandled rejection.
  const imports = rows.map((row, index) => loadRow(row, paths[index]!))
  for (const pending of imports) pending.catch(() => {})
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
  // A module whose import never settles (a top-level await that waits for good) is bounded like an
  // apply: the caller's abort (dsh's SIGTERM) and startTimeoutMs end the wait, naming the row.
  const loading = Lifetime.following(options.signal, { timeoutMs: startTimeoutMs, code: 'PRESET_PLUGIN_TIMEOUT' })
  const releaseLoading = holdOpen()
  try {
    for (const [index, row] of rows.entries()) {
      if (options.signal?.aborted) throw bootAborted(options.signal)
      let entry: LoadedRow
      try {
        entry = await loading.race(imports[index]!)
      } catch (error) {
        if (loading.expired) throw new PresetError(`${rowLabel(row)}: plugin did not finish loading within ${startTimeoutMs} ms`, 'PRESET_PLUGIN_TIMEOUT')
        if (options.signal?.aborted) throw bootAborted(options.signal)
        throw error
      }
      // cordis applies a non-reusable plugin once and silently ignores any later row naming it.
      const first = loadedBy.get(entry.plugin)
      if (first && !(entry.plugin as { reusable?: boolean }).reusable) {
        throw new PresetError(`${entry.label}: ${row.name} is already loaded by ${first.label} and is not reusable, so this row would never apply`, 'PRESET_INVALID')
      }
      loadedBy.set(entry.plugin, entry)
      loaded.push(entry)
    }
  } finally {
    loading.dispose()
    releaseLoading()
  }

  const app = new Context()
  app.set('dshHost', { lifetime: options.lifetime ?? 'long-lived', workspace: resolve(options.workspace ?? process.cwd()), ...(options.askTrust ? { askTrust: options.askTrust } : {}), ...(options.env ? { env: options.env } : {}) })
  const forks: { fork: ForkScope; entry: LoadedRow }[] = []
  const contain = options.containStrayRejections ?? (options.lifetime ?? 'long-lived') === 'long-lived'
  const release = contain ? containStrayRejections(app, loaded) : () => {}
  const stop = async () => {
    try {
      await stopHost(app, forks.map(({ fork }) => fork))
    } finally {
      release()
    }
  }
  const host: Host = { app, rows: loaded, stop, originOf: (error) => strayOrigin(loaded, error) }
  try {
    for (const entry of loaded) {
      const fork = withOrigin(app, entry.plugin, entry.row, () => (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(entry.plugin, entry.row.config))
      forks.push({ fork, entry })
    }
    const started = (async () => {
      await app.start()
      await app.events.flush()
    })()
    const budget = Lifetime.following(options.signal, { timeoutMs: startTimeoutMs, code: 'PRESET_PLUGIN_TIMEOUT' })
    const releaseStarting = holdOpen()
    try {
      await budget.race(started)
    } catch (error) {
      if (budget.expired) {
        const still = forks.find(({ fork }) => [PENDING, LOADING].includes(scopeOf(fork).status))
        const who = still ? `${still.entry.label}: plugin` : 'the composition'
        throw new PresetError(`${who} did not finish starting within ${startTimeoutMs} ms`, 'PRESET_PLUGIN_TIMEOUT')
      }
      if (options.signal?.aborted) throw bootAborted(options.signal)
      throw error
    } finally {
      budget.dispose()
      releaseStarting()
    }
    for (const { fork, entry } of forks) {
      const scope = scopeOf(fork)
      if (fork.status === FAILED || scope.status === FAILED) {
        const reason: unknown = scope.error ?? fork.error
        const code = codeInChain(reason)
        const message = errorMessage(reason)
        // The plugin's own code goes into the message (a caller sees this error's, PRESET_PLUGIN_FAILED);
        // not when it is that same code (a nested boot) or the message already ends with it: one tag per code.
        const tag = code && code !== 'PRESET_PLUGIN_FAILED' && !message.endsWith(`[${code}]`) ? ` [${code}]` : ''
        throw new PresetError(`${entry.label}: plugin failed to start: ${message}${tag}`, 'PRESET_PLUGIN_FAILED', { cause: reason })
      }
      const missing = Object.entries(fork.runtime.inject)
        .filter(([name, meta]) => meta.required && app.get(name) === undefined)
        .map(([name]) => name)
      if (missing.length) {
        throw new PresetError(`${entry.label}: needs the service${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which no row provides`, 'PRESET_PLUGIN_UNSATISFIED')
      }
    }
  } catch (error) {
    await stop().catch(() => {})
    throw error
  }
  return host
}

/** The scope whose status tells whether a row applied: the fork of a reusable plugin, else its runtime. */
function scopeOf(fork: ForkScope) {
  return fork.runtime.isReusable || !fork.runtime.plugin ? fork : fork.runtime
}

function bootAborted(signal: AbortSignal): PresetError {
  return new PresetError('the boot was interrupted', 'PRESET_BOOT_ABORTED', { cause: signal.reason })
}

/** The code of the first coded error along a cause chain, so a boot failure names it. */
function codeInChain(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 8; current = (current as { cause?: unknown }).cause, depth++) {
    if (isHarnessError(current)) return current.code
  }
  return undefined
}

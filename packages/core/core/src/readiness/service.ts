import { Context, Service } from 'cordis'
import { configParser } from '../config-parser.ts'
import { z } from 'zod'
import { MAX_TIMER_DELAY_MS } from '../abort.ts'
import { Lifetime } from '../lifetime/lifetime.ts'
import { errorMessage, HarnessError } from '../errors.ts'

declare module 'cordis' {
  interface Context {
    readiness: ReadinessService
  }
  interface Events {
    /** Long work (a server starting, a project indexing) says what it is doing. */
    'readiness/progress'(surface: string, id: string, message: string): void
  }
}

/**
 * Where a capability stands. `idle`: configured, nothing started yet (starts on first use).
 * `unavailable`: cannot work as configured (missing key, missing executable); `crashed`: it ran and died.
 * `needs_auth`: a remote service wants the user to log in (the detail names the command that does it).
 * `no_credential`: its key was not found (the detail says where it was looked for). `cooling_down`:
 * rate limited or down, not used until the time in the detail. `failing`: its recent calls failed in
 * a way time alone will not fix (a refused key, unreadable answers). `untrusted`: something the
 * workspace brings (its TypeScript, its `.mcp.json` servers, its `.env`, its skills) was not used
 * because the workspace is not trusted; the detail names it and the `dsh trust <dir>` that would use it.
 */
export type CapabilityState = 'ready' | 'idle' | 'starting' | 'indexing' | 'unavailable' | 'crashed' | 'needs_auth' | 'no_credential' | 'cooling_down' | 'failing' | 'untrusted'

export interface CapabilityStatus {
  readonly state: CapabilityState
  readonly detail: string
  /**
   * Everything of which `detail` names only the first few (`and 2,990 more`): `dsh status --json`
   * carries them, up to a cap the capability documents, with `itemsOmitted` counting the rest.
   */
  readonly items?: readonly CapabilityItem[]
  readonly itemsOmitted?: number
  /**
   * The coded failure that put the capability in this state (a missing executable, a config file
   * that cannot be read): `--json` carries it for scripts to route on, and `codedDetail` shows its
   * code once after the detail.
   */
  readonly failure?: CapabilityFailure
}

export interface CapabilityFailure {
  readonly code: string
  readonly message: string
}

/** A row's detail as people read it: with its failure's code once at the end (`… not found [MCP_CONNECT_FAILED]`). */
export function codedDetail(status: Pick<CapabilityStatus, 'detail' | 'failure'>): string {
  return status.failure ? `${status.detail} [${status.failure.code}]` : status.detail
}

/** One thing a row lists: a rejected file, a warning, a shadowed file. */
export interface CapabilityItem {
  readonly kind: string
  readonly path: string
  readonly reason: string
}

export interface Capability {
  /** `web`, `lsp`, `mcp`, `skill`, … */
  readonly surface: string
  readonly id: string
  /** False when the capability is mounted but not set up (e.g. no provider chosen). */
  readonly configured: boolean
  /** The current state, without side effects. */
  status(): CapabilityStatus
  /** An active check (start the server, look up the key); `dsh status` runs it. Defaults to `status()`. */
  probe?(context: ProbeContext): Promise<CapabilityStatus>
  /**
   * For a capability that stands for a set found only by looking (the skill roots of the probed
   * workspace): when probing, these rows replace the capability's own row, and an empty list shows
   * nothing. A failure shows as one `unavailable` row under the capability's own id.
   */
  probeRows?(context: ProbeContext): Promise<readonly CapabilityRow[]>
  /** With `probeRows`: the capability has no row of its own, so a report without probing shows nothing for it. */
  readonly probeOnly?: boolean
  /**
   * The tools this capability serves, when that is not every tool of its surface (one MCP server
   * of several). Default: every tool whose `surface` is the capability's surface.
   */
  tools?(): readonly string[]
}

/** One row of a capability that reports several (`probeRows`). */
export interface CapabilityRow extends CapabilityStatus {
  readonly id: string
}

export interface ProbeContext {
  readonly signal: AbortSignal
  /** The workspace the report is for (`dsh status --cwd`). */
  readonly cwd: string
}

export interface CapabilityReport extends CapabilityStatus {
  readonly surface: string
  readonly id: string
  readonly configured: boolean
  /** The model-visible tools of the capability's surface (tools declare their `surface`). */
  readonly tools: readonly string[]
}

export const ReadinessConfig = z.strictObject({
  /** Budget for all probes of one report together. */
  probeTimeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(120_000),
})
export type ReadinessConfig = z.infer<typeof ReadinessConfig>

/** `ctx.readiness`: what each surface can do right now, separate from which tools are visible. */
export class ReadinessService extends Service {
  static Config = configParser(ReadinessConfig)

  private readonly capabilities = new Map<string, Capability>()
  private readonly settings: ReadinessConfig

  constructor(ctx: Context, config: ReadinessConfig) {
    super(ctx, 'readiness', true)
    this.settings = config
  }

  /** An effect on the caller's scope. `surface`/`id` pairs are unique. */
  register(capability: Capability): () => void {
    const key = `${capability.surface}/${capability.id}`
    return this.ctx.effect(() => {
      if (this.capabilities.has(key)) throw new HarnessError(`capability ${key} is already registered`, 'DUPLICATE_CAPABILITY')
      this.capabilities.set(key, capability)
      return () => {
        if (this.capabilities.get(key) === capability) this.capabilities.delete(key)
      }
    })
  }

  progress(surface: string, id: string, message: string): void {
    try {
      this.ctx.emit('readiness/progress', surface, id, message)
    } catch {
      // A progress listener's failure must not disturb the work it observes.
    }
  }

  /**
   * One row per capability, plus a `tool` row for every visible tool no capability claims.
   * With `probe`, runs every probe concurrently within `probeTimeoutMs`; a probe that fails or
   * overruns reports `unavailable` with the reason instead of failing the report. With `surface`,
   * only that surface's rows, and only its probes run: `dsh mcp list` probing every surface started
   * the workspace's language servers (pyright and tsserver in a TypeScript and Python repository:
   * about 3.5 s of CPU) for rows it then dropped.
   */
  async report(options: { probe?: boolean; signal?: AbortSignal; cwd?: string; surface?: string } = {}): Promise<CapabilityReport[]> {
    const budget = Lifetime.following(options.signal, { timeoutMs: options.probe ? this.settings.probeTimeoutMs : 0, code: 'PROBE_TIMEOUT' })
    const cwd = options.cwd ?? process.cwd()
    const tools = this.ctx.get('tools')
    const toolsOf = new Map<string, string[]>()
    for (const { name } of tools?.catalog({ all: true }) ?? []) {
      const surface = tools?.get(name)?.surface ?? `tool:${name}`
      toolsOf.set(surface, [...(toolsOf.get(surface) ?? []), name])
    }
    try {
      const capabilities = [...this.capabilities.values()].filter((capability) => options.surface === undefined || capability.surface === options.surface)
      const groups = await Promise.all(
        capabilities.map(async (capability): Promise<CapabilityReport[]> => {
          const found = await this.rowsOf(capability, options.probe ? budget : undefined, cwd)
          if (!found.length) return []
          const served = capability.tools ? [...capability.tools()].sort(compare) : (toolsOf.get(capability.surface) ?? [])
          return found.map(({ id, state, detail, items, itemsOmitted, failure }) => ({
            surface: capability.surface,
            id,
            configured: capability.configured,
            tools: served,
            state,
            detail,
            ...(items ? { items, itemsOmitted: itemsOmitted ?? 0 } : {}),
            ...(failure ? { failure: { code: failure.code, message: failure.message } } : {}),
          }))
        }),
      )
      const rows = groups.flat()
      const covered = new Set(rows.map((row) => row.surface))
      for (const [surface, names] of toolsOf) {
        if (covered.has(surface) || (options.surface !== undefined && surface !== options.surface)) continue
        // A tool of no surface is ready whenever it is registered; a surface tool with no
        // capability behind it (say, no provider row) is visible but cannot work.
        for (const name of names) {
          rows.push(
            surface.startsWith('tool:')
              ? { surface: 'tool', id: name, configured: true, tools: [name], state: 'ready', detail: '' }
              : { surface, id: name, configured: false, tools: [name], state: 'unavailable', detail: `no ${surface} provider is mounted; calls fail until one is` },
          )
        }
      }
      return rows.sort((a, b) => compare(a.surface, b.surface) || compare(a.id, b.id))
    } finally {
      budget.dispose()
    }
  }

  /**
   * The capability's rows: its `probeRows` when probing (a failure is one `unavailable` row under
   * the capability's own id), else its one status. Each probe gets a child of the report's budget:
   * its own signal, which no other probe listens on, released when the probe settles.
   */
  private async rowsOf(capability: Capability, budget: Lifetime | undefined, cwd: string): Promise<readonly CapabilityRow[]> {
    if (!budget && capability.probeOnly && capability.probeRows) return []
    if (!budget || !capability.probeRows) return [{ ...(await this.statusOf(capability, budget, cwd)), id: capability.id }]
    const probeRows = capability.probeRows.bind(capability)
    try {
      return await budget.run({}, (own) => probeRows({ signal: own.signal, cwd }))
    } catch (error) {
      return [{ id: capability.id, state: 'unavailable', detail: errorMessage(error) }]
    }
  }

  private async statusOf(capability: Capability, budget: Lifetime | undefined, cwd: string): Promise<CapabilityStatus> {
    try {
      if (budget && capability.probe) {
        const probe = capability.probe.bind(capability)
        return await budget.run({}, (own) => probe({ signal: own.signal, cwd }))
      }
      return capability.status()
    } catch (error) {
      return { state: 'unavailable', detail: errorMessage(error) }
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

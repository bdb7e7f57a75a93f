import { z } from 'zod'
import { assertNever } from '../errors.ts'
import type { Session } from '../sessions/session.ts'
import type { CatalogEntry, DeferMode, PromptSection } from './types.ts'

/** The name of the one tool the runtime adds while some tools are deferred. Reserved. */
export const TOOL_SEARCH = 'tool_search'

/** The session fact a search that loaded tools appends (`data: { names }`), for replay and transcripts. */
export const TOOLS_LOADED_EVENT = 'tools/loaded'

export const DeferConfig = z.strictObject({
  /** Off: every tool is always listed, `always` ones included, and there is no `tool_search`. */
  enabled: z.boolean().default(true),
  /** More deferrable (`auto`) tools than this, and they are all deferred. */
  aboveTools: z.number().int().nonnegative().default(50),
  /** Deferrable tools whose names, descriptions and schemas add up to more characters than this are all deferred. */
  aboveChars: z.number().int().nonnegative().default(60_000),
})
export type DeferConfig = z.infer<typeof DeferConfig>

/** What the deferral needs to know of one registered tool. */
export interface DeferrableTool {
  readonly entry: CatalogEntry
  readonly defer: DeferMode
  /** Characters the tool costs the model when listed: name, description and schema. */
  readonly chars: number
}

/** The catalog split, computed once per change of the registry. */
interface Split {
  /** Listed for everyone, sorted by name. */
  readonly listed: readonly CatalogEntry[]
  /** Withheld until a search loads them, by name. */
  readonly deferred: ReadonlyMap<string, CatalogEntry>
}

/**
 * Which tools the model sees up front and which wait for `tool_search`. A tool declares `defer:
 * 'auto'` (deferred once the deferrable tools pass the budget), `'always'` or `'never'` (the
 * default). What a search loads stays in that session's catalog, appended after what the model saw
 * already, so the listing a prompt cache holds never reorders.
 */
export class Deferral {
  private split: Split | undefined
  private readonly loaded = new WeakMap<Session, Set<string>>()

  constructor(
    private readonly settings: DeferConfig,
    private readonly tools: () => Iterable<DeferrableTool>,
    /** Told when a session's catalog grew, so a host relaying it (`dsh serve`) can say the list changed. */
    private readonly onLoaded: () => void,
  ) {}

  /** Forgets the split: the registry changed. */
  invalidate(): void {
    this.split = undefined
  }

  /** True while at least one tool is withheld: `tool_search` is listed. */
  get active(): boolean {
    return this.current().deferred.size > 0
  }

  /** Whether `name` is withheld from catalogs that have not loaded it. */
  isDeferred(name: string): boolean {
    return this.current().deferred.has(name)
  }

  /** The deferred tools, for the search index. */
  deferredTools(): Iterable<CatalogEntry> {
    return this.current().deferred.values()
  }

  /**
   * What a session's model sees: the listed tools by name, then `tool_search` (while anything is
   * deferred), then what this session loaded, in the order it loaded them (tools gone since are
   * left out). `toolSearch` is asked for only then.
   */
  catalog(session: Session | undefined, toolSearch: () => CatalogEntry): CatalogEntry[] {
    const { listed, deferred } = this.current()
    if (!deferred.size) return [...listed]
    const visible = [...listed, toolSearch()]
    for (const name of (session && this.loaded.get(session)) ?? []) {
      const entry = deferred.get(name)
      if (entry) visible.push(entry)
    }
    return visible
  }

  /** Adds deferred tools to a session's catalog; answers the names that were new to it. */
  load(session: Session | undefined, names: readonly string[]): string[] {
    if (!session) return []
    const { deferred } = this.current()
    let set = this.loaded.get(session)
    if (!set) this.loaded.set(session, (set = new Set()))
    const added: string[] = []
    for (const name of names) {
      if (!deferred.has(name) || set.has(name)) continue
      set.add(name)
      added.push(name)
    }
    if (!added.length) return added
    if (!session.ended) session.append(TOOLS_LOADED_EVENT, { names: added })
    this.onLoaded()
    return added
  }

  /**
   * The tools this session loaded that are no longer registered (their server dropped them or
   * went away), each answered once: they leave the session's loaded set, so the model is told
   * about them a single time and not kept believing in them.
   */
  vanished(session: Session, registered: (name: string) => boolean): string[] {
    const set = this.loaded.get(session)
    if (!set) return []
    const gone = [...set].filter((name) => !registered(name))
    for (const name of gone) set.delete(name)
    return gone
  }

  /** The system-prompt section that tells the model what is behind `tool_search`. */
  section(): PromptSection | undefined {
    const { deferred } = this.current()
    if (!deferred.size) return undefined
    const groups = new Map<string, number>()
    for (const name of deferred.keys()) {
      const group = namespaceOf(name)
      groups.set(group, (groups.get(group) ?? 0) + 1)
    }
    const listing = [...groups]
      .map(([name, count]) => ({ name, count }))
      .sort(byName)
      .map(({ name, count }) => `${name} (${count})`)
      .join(', ')
    return {
      name: `tool:${TOOL_SEARCH}`,
      order: 190,
      text: [
        `${deferred.size} more tools are available but not listed: ${listing}.`,
        `Call ${TOOL_SEARCH} to load them: an exact tool name (the full name, or the server's own name), "select:name1,name2" for several, or words describing the task. Loaded tools can be called at once; a tool whose exact name you know can be called without a search.`,
      ].join('\n'),
    }
  }

  private current(): Split {
    return (this.split ??= this.compute())
  }

  private compute(): Split {
    const all = [...this.tools()]
    const { enabled, aboveTools, aboveChars } = this.settings
    let autoCount = 0
    let autoChars = 0
    for (const tool of all) {
      if (tool.defer === 'never') continue
      autoCount++
      autoChars += tool.chars
    }
    const overBudget = autoCount > aboveTools || autoChars > aboveChars
    const listed: CatalogEntry[] = []
    const deferred = new Map<string, CatalogEntry>()
    for (const tool of all) {
      if (enabled && deferredBy(tool.defer, overBudget)) deferred.set(tool.entry.name, tool.entry)
      else listed.push(tool.entry)
    }
    listed.sort(byName)
    return { listed, deferred: new Map([...deferred.values()].sort(byName).map((entry) => [entry.name, entry])) }
  }
}

function deferredBy(mode: DeferMode, overBudget: boolean): boolean {
  switch (mode) {
    case 'never':
      return false
    case 'always':
      return true
    case 'auto':
      return overBudget
    default:
      return assertNever(mode, 'defer mode')
  }
}

/** `mcp__github__create_issue` → `mcp__github__`; a name without `__` is its own group. */
export function namespaceOf(name: string): string {
  const at = name.lastIndexOf('__')
  return at > 0 ? name.slice(0, at + 2) : name
}

/** The server's own name of a bridged tool: what follows the last `__` (`create_issue`). */
export function rawNameOf(name: string): string {
  const at = name.lastIndexOf('__')
  return at > 0 ? name.slice(at + 2) : name
}

export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

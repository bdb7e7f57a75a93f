import type MiniSearch from 'minisearch'
import { z } from 'zod'
import type { JsonObject } from '../json.ts'
import { lazy } from '../lazy.ts'
import { createUserMessage } from '../sessions/session.ts'
import type { PreStepMiddleware } from '../sessions/service.ts'
import { rawNameOf, TOOL_SEARCH, type Deferral } from './deferral.ts'

/** The `source.kind` of the message that tells a model its loaded tools are gone. */
export const VANISHED_TOOLS_KIND = 'tools-vanished'
import type { CatalogEntry, ToolDefinition } from './types.ts'

const SELECT = /^select:/i

/** `tool_search`'s input, built with the tool's definition: a host whose tools all fit the catalog never makes it (start-up, issue 27 item 5). */
export const toolSearchInput = lazy(() =>
  z.strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .describe('An exact tool name (full, or the server\'s own name), "select:name1,name2" to load named tools, or words describing the task'),
    limit: z.number().int().min(1).max(20).optional().describe('How many tools to return for a word search (default 5)'),
  }),
)
type ToolSearchInput = z.infer<ReturnType<typeof toolSearchInput>>

export type FoundTool = {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
  /** `loaded`: a deferred tool, now in the calling session's tools; `available`: it was listed already. */
  readonly status: 'loaded' | 'available'
}

type ToolSearchValue = { query: string; tools: FoundTool[]; notFound: string[] }

/** Where the search finds tools: every registered one by exact name, the deferred ones by words. */
export interface SearchSpace {
  /** Every registered tool but `tool_search`. */
  all(): Iterable<CatalogEntry>
  readonly deferral: Deferral
}

/** Exact-name lookups, built once per change of the registry. */
interface Names {
  readonly full: ReadonlyMap<string, CatalogEntry>
  /** A server's own name (after the last `__`) → its tools. */
  readonly raw: ReadonlyMap<string, readonly CatalogEntry[]>
  /** Lower-cased full and own names → their tools, for a query in the wrong case. */
  readonly folded: ReadonlyMap<string, readonly CatalogEntry[]>
}

const DEFAULT_LIMIT = 5

/**
 * The ranked word search over the deferred tools: names split into words (`create_pull_request`,
 * `createPullRequest` → create pull request), descriptions and parameter names, built on first use
 * after each change of the registry. MiniSearch is imported then, not at startup.
 */
export class ToolIndex {
  private built: Promise<MiniSearch> | undefined
  private names: Names | undefined

  invalidate(): void {
    this.built = undefined
    this.names = undefined
  }

  /** The tools an exact name means: that full name, else every tool of that own name, else the same ignoring case. */
  exact(space: SearchSpace, name: string): readonly CatalogEntry[] {
    const names = (this.names ??= indexNames(space))
    const full = names.full.get(name)
    if (full) return [full]
    return names.raw.get(name) ?? names.folded.get(name.toLowerCase()) ?? []
  }

  named(space: SearchSpace, name: string): CatalogEntry | undefined {
    return (this.names ??= indexNames(space)).full.get(name)
  }

  async search(space: SearchSpace, words: string, limit: number): Promise<string[]> {
    const index = await (this.built ??= build(space))
    return index
      .search(words, { prefix: true, fuzzy: (term) => (term.length >= 5 ? 0.2 : false), combineWith: 'OR', boost: { name: 3, params: 1.5, description: 1 } })
      .slice(0, limit)
      .map((hit) => String(hit.id))
  }
}

function indexNames(space: SearchSpace): Names {
  const full = new Map<string, CatalogEntry>()
  const raw = new Map<string, CatalogEntry[]>()
  const folded = new Map<string, CatalogEntry[]>()
  const add = (map: Map<string, CatalogEntry[]>, key: string, tool: CatalogEntry) => {
    const list = map.get(key)
    if (!list) map.set(key, [tool])
    else if (!list.includes(tool)) list.push(tool)
  }
  for (const tool of space.all()) {
    full.set(tool.name, tool)
    const own = rawNameOf(tool.name)
    if (own !== tool.name) add(raw, own, tool)
    add(folded, tool.name.toLowerCase(), tool)
    add(folded, own.toLowerCase(), tool)
  }
  return { full, raw, folded }
}

async function build(space: SearchSpace): Promise<MiniSearch> {
  const { default: MiniSearchClass } = await import('minisearch')
  const index = new MiniSearchClass({ fields: ['name', 'description', 'params'], tokenize: words, processTerm: (term) => term.toLowerCase() || null })
  index.addAll([...space.deferral.deferredTools()].map((tool) => ({ id: tool.name, name: tool.name, description: tool.description, params: parameterNames(tool.parameters).join(' ') })))
  return index
}

/** Words of a name or a text: split at non-alphanumerics and at lower→upper case steps. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
}

function parameterNames(schema: JsonObject): string[] {
  const properties = schema.properties
  return properties && typeof properties === 'object' && !Array.isArray(properties) ? Object.keys(properties) : []
}

/** The `tool_search` tool: loads deferred tools into the calling session's catalog. */
export function toolSearchDefinition(space: SearchSpace, index: ToolIndex): ToolDefinition<ToolSearchInput, ToolSearchValue> {
  return {
    name: TOOL_SEARCH,
    description:
      'Finds tools that are available but not listed, and adds them to your tools. Give an exact tool name, "select:a,b" for several named tools, or words for what you need to do. The tools it returns can be called right away.',
    input: toolSearchInput(),
    concurrencySafe: true,
    async execute({ query, limit = DEFAULT_LIMIT }, exec) {
      const picked = new Map<string, CatalogEntry>()
      const notFound: string[] = []
      if (SELECT.test(query)) {
        const names = query.replace(SELECT, '').split(',').map((name) => name.trim()).filter(Boolean)
        for (const name of names) {
          const found = index.exact(space, name)
          if (!found.length) notFound.push(name)
          for (const tool of found) picked.set(tool.name, tool)
        }
      } else {
        for (const tool of index.exact(space, query)) picked.set(tool.name, tool)
        // A full name is an answer on its own; anything else (a server's own name, words) is
        // topped up with ranked matches.
        const named = index.named(space, query) !== undefined
        for (const name of named ? [] : await index.search(space, query, limit + picked.size)) {
          if (picked.size >= limit) break
          const tool = index.named(space, name)
          if (tool) picked.set(name, tool)
        }
      }
      const tools = [...picked.values()]
      const { deferral } = space
      deferral.load(exec.session, tools.filter((tool) => deferral.isDeferred(tool.name)).map((tool) => tool.name))
      return {
        query,
        tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters, status: deferral.isDeferred(tool.name) ? 'loaded' : 'available' })),
        notFound,
      }
    },
    render({ query }, { tools, notFound }) {
      const lines: string[] = []
      if (!tools.length) lines.push(`No tool matches ${JSON.stringify(query)}. Try other words, or an exact tool name.`)
      else lines.push(`${tools.length} tool${tools.length === 1 ? '' : 's'} for ${JSON.stringify(query)}, callable now:`)
      for (const tool of tools) lines.push('', tool.name, `  ${tool.description.replace(/\s+/g, ' ').trim()}`, `  parameters: ${JSON.stringify(tool.parameters)}`)
      if (notFound.length) lines.push('', `No tool named ${notFound.map((name) => JSON.stringify(name)).join(', ')}.`)
      return lines.join('\n')
    },
  }
}

/**
 * A pre-step link: before the next model request of a session whose searches loaded tools that
 * are gone since, one message names them, so the model stops planning with them.
 */
export function vanishedToolsNote(deferral: Deferral, registered: (name: string) => boolean): PreStepMiddleware {
  return async (input, next) => {
    const gone = deferral.vanished(input.session, registered)
    if (!gone.length) return next()
    const text = `These tools that ${TOOL_SEARCH} loaded earlier are no longer available (their server removed them or stopped): ${gone.join(', ')}. Do not call them; search again for a replacement if you still need one.`
    return next([...input.messages, createUserMessage(text, { kind: VANISHED_TOOLS_KIND, names: gone })])
  }
}

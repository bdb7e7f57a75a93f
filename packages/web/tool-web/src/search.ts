import { ToolError } from 'dsh-core'
import type { WebSearchRequest, WebSearchResult, WebSearchSource } from 'dsh-web'
import { z } from 'zod'
import type { ToolWebConfig } from './config.ts'
import { queriesDescription } from './guidance.ts'

/** The model's arguments. The bound on `queries` is in the text and checked at run time, not in the schema. */
export function searchInput(maxQueries: number) {
  return z.strictObject({ queries: z.array(z.string()).describe(queriesDescription(maxQueries)) })
}
export type SearchInput = { readonly queries: readonly string[] }

const Source = z.strictObject({
  url: z.string(),
  title: z.string().exactOptional(),
  snippet: z.string().exactOptional(),
  publishedAt: z.string().exactOptional(),
})

/** The canonical value of one web_search call. */
export const SearchValue = z.strictObject({
  /** Provider answers; with several queries, one `### <query>` block per answer. */
  content: z.string().exactOptional(),
  sources: z.array(Source),
  /** True when a provider, the seam or the merge dropped sources. */
  truncated: z.boolean(),
})
export type SearchValue = z.infer<typeof SearchValue>

/** Only what `web_search` needs from `ctx.web`. */
export interface Searcher {
  search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult>
}

/** Checks the queries (in this order: count, blanks) and removes exact duplicates, keeping the first. */
export function distinctQueries(queries: readonly string[], maxQueries: number): string[] {
  if (!queries.length) throw new ToolError('queries must contain at least one query', 'INVALID_ARGS')
  if (queries.length > maxQueries) throw new ToolError(`queries must contain at most ${maxQueries} ${maxQueries === 1 ? 'query' : 'queries'}`, 'INVALID_ARGS')
  if (queries.some((query) => !query.trim())) throw new ToolError('each query must be a non-empty string', 'INVALID_ARGS')
  // Sent untrimmed: a query's whitespace is the model's choice.
  return [...new Set(queries)]
}

export async function runSearch(web: Searcher, config: ToolWebConfig, args: SearchInput, signal: AbortSignal): Promise<SearchValue> {
  const queries = distinctQueries(args.queries, config.searchMaxQueries)
  const maxResults = config.searchMaxResults
  if (queries.length === 1) return project(await web.search({ query: queries[0]!, maxResults }, signal))
  return merge(queries, await searchAll(web, queries, maxResults, signal), maxResults)
}

/**
 * All queries at once, on one signal fused from the caller's and the batch's: the first failure
 * aborts the siblings, and the call settles only when every search has.
 */
async function searchAll(web: Searcher, queries: readonly string[], maxResults: number, signal: AbortSignal): Promise<WebSearchResult[]> {
  const batch = new AbortController()
  const fused = AbortSignal.any([signal, batch.signal])
  let first: { error: unknown } | undefined
  const settled = await Promise.allSettled(
    queries.map(async (query) => {
      try {
        return await web.search({ query, maxResults }, fused)
      } catch (error) {
        if (!first) {
          first = { error }
          batch.abort(error)
        }
        throw error
      }
    }),
  )
  if (first) throw first.error
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<WebSearchResult>).value)
}

/** Answers under their query's heading; sources round-robin by rank, first URL wins, capped. */
export function merge(queries: readonly string[], results: readonly WebSearchResult[], maxResults: number): SearchValue {
  const answers = results.flatMap((result, index) => (result.content ? [`### ${queries[index]}\n\n${result.content}`] : []))
  const seen = new Set<string>()
  const sources: WebSearchSource[] = []
  let truncated = results.some((result) => result.truncated)
  const deepest = Math.max(0, ...results.map((result) => result.sources.length))
  merging: for (let rank = 0; rank < deepest; rank++) {
    for (const result of results) {
      const source = result.sources[rank]
      if (!source || seen.has(source.url)) continue
      if (sources.length === maxResults) {
        truncated = true
        break merging
      }
      seen.add(source.url)
      sources.push(source)
    }
  }
  return project({ ...(answers.length ? { content: answers.join('\n\n') } : {}), sources, truncated })
}

/** Copies only the contract's fields, omitting empty optional ones. */
function project(result: WebSearchResult): SearchValue {
  return {
    ...(result.content ? { content: result.content } : {}),
    sources: result.sources.map((source) => ({
      url: source.url,
      ...(source.title ? { title: source.title } : {}),
      ...(source.snippet ? { snippet: source.snippet } : {}),
      ...(source.publishedAt ? { publishedAt: source.publishedAt } : {}),
    })),
    truncated: result.truncated,
  }
}

export function renderSearch(value: SearchValue): string {
  const parts: string[] = []
  if (value.content) parts.push(value.content)
  if (value.sources.length) parts.push(['Sources:', ...value.sources.map(sourceLine)].join('\n'))
  else if (!value.content) parts.push('No results found.')
  if (value.truncated) parts.push(`(Showing the first ${value.sources.length} sources. Refine the query to see others.)`)
  parts.push('Cite the relevant URLs as Markdown links in your answer.')
  return parts.join('\n\n')
}

function sourceLine(source: SearchValue['sources'][number]): string {
  const detail = [source.snippet, source.publishedAt ? `(${source.publishedAt})` : undefined].filter(Boolean).join(' ')
  return `- [${label(source)}](${source.url})${detail ? ` — ${detail}` : ''}`
}

function label(source: SearchValue['sources'][number]): string {
  if (source.title) return source.title
  try {
    return new URL(source.url).hostname || source.url
  } catch {
    return source.url
  }
}

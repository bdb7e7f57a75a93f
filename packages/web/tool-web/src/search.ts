import { assertNever, capText, fitsWithin, lazySchema, readableText, ToolError, type Lifetime } from 'dsh-core'
import { sliceCodePoints, stripBidi, type WebBound, type WebSearchRequest, type WebSearchResult, type WebSearchSource } from 'dsh-web'
import { z } from 'zod'
import type { ToolWebConfig } from './config.ts'
import { queriesDescription } from './guidance.ts'

/** The model's arguments. The bound on `queries` is in the text and checked at run time, not in the schema. */
export function searchInput(maxQueries: number) {
  return z.strictObject({ queries: z.array(z.string()).describe(queriesDescription(maxQueries)) })
}
export type SearchInput = { readonly queries: readonly string[] }

/** The canonical value of one web_search call (built on first use: `dsh tools` never needs it). */
export const SearchValue = lazySchema(() => {
  const Source = z.strictObject({
    url: z.string(),
    title: z.string().exactOptional(),
    snippet: z.string().exactOptional(),
    publishedAt: z.string().exactOptional(),
  })
  const Skipped = z.strictObject({ id: z.string(), state: z.enum(['no_credential', 'cooling_down', 'failing', 'unavailable']), reason: z.string() })
  return z.strictObject({
    /** Provider answers; with several queries, one `### <query>` block per answer. */
    content: z.string().exactOptional(),
    sources: z.array(Source),
    /** True when anything was cut: a provider, the seam or the merge dropped sources, or provider text was shortened. */
    truncated: z.boolean(),
    /**
     * What was cut, when `truncated`: `sources` dropped, provider `text` shortened (the answer at
     * `searchMaxOutputChars`, a title or a snippet at its share), or `both`; the note the model reads
     * says which. A truncated value without it (made before it existed) reads as sources dropped.
     */
    cut: z.enum(['sources', 'text', 'both']).exactOptional(),
    /** The provider that served the search; with several queries served by several, their ids in query order, comma-separated. */
    provider: z.string().exactOptional(),
    /** Providers a failover list passed over before one served (each once), with their state and why: a refused key, a cooldown. */
    skipped: z.array(Skipped).exactOptional(),
  })
})
export type SearchValue = z.infer<typeof SearchValue>

/** Only what `web_search` needs from `ctx.web`. */
export interface Searcher {
  search(request: WebSearchRequest, bound?: WebBound): Promise<WebSearchResult>
}

/** Checks the queries (in this order: count, blanks, length) and removes exact duplicates, keeping the first. */
export function distinctQueries(queries: readonly string[], maxQueries: number, maxQueryChars = Number.MAX_SAFE_INTEGER): string[] {
  if (!queries.length) throw new ToolError('queries must contain at least one query', 'INVALID_ARGS')
  if (queries.length > maxQueries) throw new ToolError(`queries must contain at most ${maxQueries} ${maxQueries === 1 ? 'query' : 'queries'}`, 'INVALID_ARGS')
  if (queries.some((query) => !query.trim())) throw new ToolError('each query must be a non-empty string', 'INVALID_ARGS')
  if (queries.some((query) => query.length > maxQueryChars)) throw new ToolError(`each query must be at most ${maxQueryChars} characters`, 'INVALID_ARGS')
  // Sent untrimmed: a query's whitespace is the model's choice.
  return [...new Set(queries)]
}

/**
 * Searches on the call's lifetime, not its signal: reading `exec.signal` makes an AbortSignal (and
 * the provider a listener on it); a provider with `searchWithin` gets the lifetime itself.
 */
export async function runSearch(web: Searcher, config: ToolWebConfig, args: SearchInput, lifetime: Lifetime): Promise<SearchValue> {
  const queries = distinctQueries(args.queries, config.searchMaxQueries, config.searchMaxQueryChars)
  const maxResults = config.searchMaxResults
  const value = queries.length === 1 ? project(cleaned(await web.search({ query: queries[0]!, maxResults }, lifetime))) : merge(queries, (await searchAll(web, queries, maxResults, lifetime)).map(cleaned), maxResults)
  return bounded(value, config.searchMaxOutputChars)
}

/**
 * All queries at once, on one child of the call's lifetime: the first failure aborts the siblings,
 * and the call settles only when every search has.
 */
async function searchAll(web: Searcher, queries: readonly string[], maxResults: number, lifetime: Lifetime): Promise<WebSearchResult[]> {
  const batch = lifetime.child()
  let first: { error: unknown } | undefined
  try {
    const settled = await Promise.allSettled(
      queries.map(async (query) => {
        try {
          return await web.search({ query, maxResults }, batch)
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
  } finally {
    batch.dispose()
  }
}

/** Answers under their query's heading; sources round-robin by rank, first URL wins, capped. */
export function merge(queries: readonly string[], results: readonly WebSearchResult[], maxResults: number): SearchValue {
  const answers = results.flatMap((result, index) => (result.content ? [`### ${oneLine(queries[index]!)}\n\n${result.content}`] : []))
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
  const providers = [...new Set(results.flatMap((result) => (result.provider ? [result.provider] : [])))]
  const skipped = [...new Map(results.flatMap((result) => result.skipped ?? []).map((entry) => [entry.id, entry])).values()]
  return project({ ...(answers.length ? { content: answers.join('\n\n') } : {}), sources, truncated, ...(providers.length ? { provider: providers.join(', ') } : {}), ...(skipped.length ? { skipped } : {}) })
}

/**
 * A provider's result as the model will read it, so the value, its `meta` and the text agree: the
 * answer one line with bidi and control characters dropped (dsh-core's readable-text.ts) and `\ [ ] ( )` escaped (it
 * cannot forge a heading, a `Sources:` list or a link); titles, snippets and dates one line without
 * them; URLs
 * WHATWG-serialised with the characters that would end a Markdown link percent-encoded. A source
 * whose URL does not parse is left for `project` to drop.
 */
function cleaned(result: WebSearchResult): WebSearchResult {
  const text = (value: string | undefined) => (value === undefined ? undefined : oneLine(readableText(value)))
  const sources = result.sources.map((source) => {
    if (typeof source.url !== 'string' || !isWebUrl(source.url)) return source
    const [title, snippet, publishedAt] = [text(source.title), text(source.snippet), text(source.publishedAt)]
    return { url: destination(stripBidi(source.url)), ...(title ? { title } : {}), ...(snippet ? { snippet } : {}), ...(publishedAt ? { publishedAt } : {}) }
  })
  const content = result.content === undefined ? undefined : escapeMarkdown(oneLine(readableText(result.content)))
  return { ...result, ...(content !== undefined ? { content } : {}), sources }
}

/** Copies only the contract's fields, omitting empty optional ones, and only sources with an http(s) URL. */
function project(result: WebSearchResult): SearchValue {
  return {
    ...(result.content ? { content: result.content } : {}),
    // A URL that is not a string is left for the output check to refuse.
    sources: result.sources.filter((source) => typeof source.url !== 'string' || isWebUrl(source.url)).map((source) => ({
      url: source.url,
      ...(source.title ? { title: source.title } : {}),
      ...(source.snippet ? { snippet: source.snippet } : {}),
      ...(source.publishedAt ? { publishedAt: source.publishedAt } : {}),
    })),
    truncated: result.truncated,
    // The seam's flag is only ever about sources (a provider, the seam or the merge dropped some).
    ...(result.truncated ? { cut: 'sources' as const } : {}),
    ...(typeof result.provider === 'string' && result.provider ? { provider: result.provider } : {}),
    ...(result.skipped?.length ? { skipped: result.skipped.map(({ id, state, reason }) => ({ id, state, reason })) } : {}),
  }
}

/**
 * The value with its provider text cut so the rendering stays near `maxChars`: the answer at
 * `maxChars`, each title and snippet at a fixed share. A value that lost text is marked truncated.
 */
function bounded(value: SearchValue, maxChars: number): SearchValue {
  let cut = false
  const clip = (text: string | undefined, max: number): string | undefined => {
    if (text === undefined || fitsWithin(text, max)) return text
    cut = true
    return sliceCodePoints(text, max)
  }
  const content = clip(value.content, maxChars)
  const sources = value.sources.map((source) => {
    const title = clip(source.title, MAX_TITLE_CHARS)
    const snippet = clip(source.snippet, MAX_SNIPPET_CHARS)
    const publishedAt = clip(source.publishedAt, MAX_TITLE_CHARS)
    return { url: source.url, ...(title ? { title } : {}), ...(snippet ? { snippet } : {}), ...(publishedAt ? { publishedAt } : {}) }
  })
  if (!cut) return value
  return { ...(content ? { content } : {}), sources, truncated: true, cut: droppedSources(value) ? 'both' : 'text', ...(value.provider ? { provider: value.provider } : {}), ...(value.skipped ? { skipped: value.skipped } : {}) }
}

const MAX_TITLE_CHARS = 500
const MAX_SNIPPET_CHARS = 2_000

/**
 * Answers, then one line per source, then notes; at most `maxChars` characters in all, the cut
 * said so at the end. Titles, snippets and URLs are the provider's data, never Markdown of ours.
 */
export function renderSearch(value: SearchValue, maxChars = Number.MAX_SAFE_INTEGER): string {
  const parts: string[] = []
  if (value.content) parts.push(value.content)
  // A value made elsewhere (a stored one, say) may still hold a source that is not a web URL.
  const shown = value.sources.filter((source) => isWebUrl(source.url))
  if (shown.length) parts.push(['Sources:', ...shown.map(sourceLine)].join('\n'))
  else if (!value.content) parts.push('No results found.')
  if (droppedSources(value)) parts.push(`(Showing the first ${value.sources.length} sources. Refine the query to see others.)`)
  if (value.cut === 'text' || value.cut === 'both') parts.push(SHORTENED)
  parts.push(CITE)
  const text = parts.join('\n\n')
  // dsh-core's cut: characters (code points), at a line end near the cap (no source line shown in
  // part) or between two characters a reader sees; it cut at UTF-16 units, parting a letter from its accent.
  return capText(text, maxChars, `\n\n(Search results truncated at ${maxChars} characters. Refine the query to see others.) ${CITE}`)
}

/** Said when provider text, not a source, was cut: refining the query would not bring it back. */
const SHORTENED = '(Long provider text was shortened: the answer, a title or a snippet. Fetch the source to read it whole.)'

/** Whether sources were dropped (a truncated value without `cut` predates it, when that was the only cut said). */
function droppedSources(value: SearchValue): boolean {
  if (!value.truncated) return false
  switch (value.cut) {
    case undefined:
    case 'sources':
    case 'both':
      return true
    case 'text':
      return false
    default:
      return assertNever(value.cut, 'search cut')
  }
}

const CITE = 'Cite the relevant URLs as Markdown links in your answer.'

function sourceLine(source: SearchValue['sources'][number]): string {
  const detail = [source.snippet && asText(source.snippet), source.publishedAt && `(${asText(source.publishedAt)})`].filter(Boolean).join(' ')
  return `- [${asText(label(source))}](${destination(source.url)})${detail ? ` — ${detail}` : ''}`
}

function label(source: SearchValue['sources'][number]): string {
  return source.title || new URL(source.url).hostname || source.url
}

/** Provider text inside a Markdown line: one line, and no bracket or parenthesis that could close or open a link. */
function asText(text: string): string {
  return escapeMarkdown(oneLine(text))
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\[\]()]/g, '\\$&')
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** A link destination: WHATWG-serialised, with the parentheses and spaces that would end it percent-encoded. */
function destination(url: string): string {
  return new URL(url).href.replace(/[()<> ]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

/**
 * An http(s) URL without credentials. A source's `user:pw@` is dropped with the source: in a link
 * `https://www.example.com@evil.test/` reads as example.com but goes to evil.test, and web_fetch
 * refuses a URL with credentials anyway (WEB_BLOCKED_URL), so the model could not read it either.
 */
function isWebUrl(url: string): boolean {
  const parsed = URL.parse(url)
  return (parsed?.protocol === 'http:' || parsed?.protocol === 'https:') && !parsed.username && !parsed.password
}


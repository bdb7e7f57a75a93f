import { lazySchema } from 'dsh-core'
import { z } from 'zod'
import { rendersTruncated, requestedUrl, type FetchInput, type FetchValue } from './fetch.ts'
import type { SearchInput, SearchValue } from './search.ts'

// What the tools keep with a result for replay (`meta`) and hand to harness UIs (cards). The
// readers take whatever a store gives back: anything malformed is undefined, and the UI falls back
// to its generic card.

const SearchMeta = lazySchema(() => {
  const MetaSource = z.object({
    url: z.string(),
    title: z.string().exactOptional(),
    snippet: z.string().exactOptional(),
    publishedAt: z.string().exactOptional(),
  })
  const MetaSkipped = z.object({ id: z.string(), state: z.string(), reason: z.string() })
  return z.object({
    sources: z.array(MetaSource),
    truncated: z.boolean(),
    // What was cut, when truncated (the value's `cut`): a UI says "more sources" only for `sources`/`both`.
    cut: z.enum(['sources', 'text', 'both']).exactOptional(),
    answer: z.string().exactOptional(),
    provider: z.string().exactOptional(),
    skipped: z.array(MetaSkipped).exactOptional(),
  })
})
export type SearchMeta = z.infer<typeof SearchMeta>

const FetchMeta = lazySchema(() =>
  z.object({
    url: z.string(),
    statusCode: z.number(),
    truncated: z.boolean(),
    cached: z.literal(true).exactOptional(),
    // The body stopped before its end: its code (WEB_FETCH_TIMEOUT, WEB_FETCH_CUT) and why, as the footer says.
    incomplete: z.object({ code: z.string(), reason: z.string() }).exactOptional(),
  }),
)
export type FetchMeta = z.infer<typeof FetchMeta>

/** The card for a call before it has a result. */
export type GenericCard = { readonly card: 'generic'; readonly kind: 'search' | 'fetch'; readonly title: string; readonly rawInput: string }
export type SearchCard = { readonly card: 'web'; readonly kind: 'search'; readonly title: string } & SearchMeta
export type FetchCard = { readonly card: 'web'; readonly kind: 'fetch'; readonly title: string } & FetchMeta

/** What a presenter needs from a finished call (a dsh-core `ToolResult` fits). */
export interface PresentableResult {
  readonly isError: boolean
  readonly meta?: unknown
}

/**
 * `{ sources, truncated, cut?, answer?, provider?, skipped? }`: `cut` is the value's (what a
 * truncation dropped: sources, provider text, both); the answer is the value's content;
 * `provider` names who served it, `skipped` the providers passed over before it and why.
 */
export function searchMeta(value: SearchValue): SearchMeta {
  return { sources: value.sources, truncated: value.truncated, ...(value.cut ? { cut: value.cut } : {}), ...(value.content ? { answer: value.content } : {}), ...(value.provider ? { provider: value.provider } : {}), ...(value.skipped ? { skipped: value.skipped } : {}) }
}

export function readSearchMeta(meta: unknown): SearchMeta | undefined {
  const read = SearchMeta.safeParse(meta)
  return read.success ? read.data : undefined
}

export function presentSearchCall(args: SearchInput): GenericCard {
  const title = args.queries.join(', ')
  return { card: 'generic', kind: 'search', title, rawInput: title }
}

/** The sources card; no copy of the model text. Undefined for an error or unreadable meta. */
export function presentSearchResult(args: SearchInput, result: PresentableResult): SearchCard | undefined {
  const meta = result.isError ? undefined : readSearchMeta(result.meta)
  return meta && { card: 'web', kind: 'search', title: args.queries.join(', '), ...meta }
}

/** `truncated` is the effective flag, the one that decides the footer the model sees. */
export function fetchMeta(value: FetchValue, cap: number): FetchMeta {
  return { url: value.url, statusCode: value.statusCode, truncated: rendersTruncated(value, cap), ...(value.cached ? { cached: true as const } : {}), ...(value.incomplete ? { incomplete: value.incomplete } : {}) }
}

export function readFetchMeta(meta: unknown): FetchMeta | undefined {
  const read = FetchMeta.safeParse(meta)
  return read.success ? read.data : undefined
}

/** Throws INVALID_ARGS for a blank url, as the call would. */
export function presentFetchCall(args: FetchInput): GenericCard {
  const url = requestedUrl(args)
  return { card: 'generic', kind: 'fetch', title: url, rawInput: url }
}

/** Titled by the url asked for; `url` is where the page came from. Undefined for an error or unreadable meta. */
export function presentFetchResult(args: FetchInput, result: PresentableResult): FetchCard | undefined {
  const meta = result.isError ? undefined : readFetchMeta(result.meta)
  return meta && { card: 'web', kind: 'fetch', title: args.url, ...meta }
}

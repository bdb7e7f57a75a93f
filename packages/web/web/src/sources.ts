import { redact } from './provider-text.ts'
import type { WebSearchResult, WebSearchSource } from './types.ts'

/** One result as an API gives it, in the seam's field names: any field but `url` may be missing, null or blank. */
export interface FoundSource {
  readonly url: string
  readonly title?: string | null | undefined
  readonly snippet?: string | null | undefined
  readonly publishedAt?: string | null | undefined
}

/**
 * An API's results as the seam's sources, in their order: a result without an http(s) URL is
 * dropped, only the first of each URL is kept, and the other fields are trimmed, an empty one left
 * out (the contract omits optional fields rather than sending them empty).
 */
export function collectSources(found: Iterable<FoundSource>): WebSearchSource[] {
  const seen = new Set<string>()
  const sources: WebSearchSource[] = []
  for (const { url, title, snippet, publishedAt } of found) {
    if (!isHttpUrl(url) || seen.has(url)) continue
    seen.add(url)
    const fields = { title: title?.trim(), snippet: snippet?.trim(), publishedAt: publishedAt?.trim() }
    sources.push({ url, ...(fields.title ? { title: fields.title } : {}), ...(fields.snippet ? { snippet: fields.snippet } : {}), ...(fields.publishedAt ? { publishedAt: fields.publishedAt } : {}) })
  }
  return sources
}

function isHttpUrl(value: string): boolean {
  const parsed = URL.parse(value)
  return parsed?.protocol === 'http:' || parsed?.protocol === 'https:'
}

/**
 * A search result with every secret redacted from its answer and from each source's URL, title,
 * snippet and date: an API that echoes the key it was sent (in a result's URL, say) cannot hand it
 * to the model or to a stored `meta`.
 */
export function redactResult(result: WebSearchResult, secrets: readonly (string | undefined)[]): WebSearchResult {
  if (!secrets.some(Boolean)) return result
  const clean = (text: string) => redact(text, secrets)
  const sources = result.sources.map((source) => {
    const out: { -readonly [K in keyof WebSearchSource]: WebSearchSource[K] } = { url: clean(source.url) }
    if (source.title !== undefined) out.title = clean(source.title)
    if (source.snippet !== undefined) out.snippet = clean(source.snippet)
    if (source.publishedAt !== undefined) out.publishedAt = clean(source.publishedAt)
    return out
  })
  return { ...result, ...(result.content !== undefined ? { content: clean(result.content) } : {}), sources }
}

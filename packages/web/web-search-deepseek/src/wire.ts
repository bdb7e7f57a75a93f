import { lazy } from 'dsh-core'
import { optionalText, providerText, WebError, type WebSearchResult, type WebSearchSource } from 'dsh-web'
import { z } from 'zod'
import type { SearchOptions } from './config.ts'

export const SEARCH_TOOL = 'web_search_20250305'

/** The Messages request, field order as sent. `maxResults` has no wire form: the seam cuts afterwards. */
export function requestBody(query: string, options: SearchOptions) {
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: `Perform a web search for the query: ${query}` }] }],
    tools: [{ type: SEARCH_TOOL, name: 'web_search', max_uses: options.maxUses }],
  }
}
export type RequestBody = ReturnType<typeof requestBody>

/** `<base>/messages`, with or without a trailing slash on the base. */
export function messagesEndpoint(baseURL: string): string {
  return new URL('messages', baseURL.endsWith('/') ? baseURL : `${baseURL}/`).href
}

/**
 * The Messages answer's shapes, built when the first answer is read: a process that never searches
 * (`dsh tools`, most starts) does not pay for them (issue 27 item 5).
 */
export const deepSeekWire = lazy(() => {
  const text = z.string().nullish()
  // A result's title, snippet or date of another type is left out, not the result (dsh-web's optionalText).
  const field = optionalText()
  return {
    Response: z.looseObject({ content: z.array(z.looseObject({ type: z.string() })).optional() }),
    TextBlock: z.looseObject({ citations: z.array(z.looseObject({ url: text, cited_text: text })).nullish() }),
    ResultItem: z.looseObject({ type: z.string(), url: text, title: field, page_age: field }),
    ResultError: z.looseObject({ type: z.literal('web_search_tool_result_error'), error_code: z.string() }),
  }
})

/**
 * Sources from the native `web_search_tool_result` blocks only (the model's prose is never scraped
 * and never returned as an answer), de-duplicated by URL, first kept; snippets from cited text.
 */
export function mapResponse(json: unknown): WebSearchResult {
  const { Response, ResultError, ResultItem } = deepSeekWire()
  const parsed = Response.safeParse(json)
  if (!parsed.success) throw new WebError(`DeepSeek returned an unprocessable response body: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`, 'WEB_PROVIDER_ERROR')
  const blocks = parsed.data.content ?? []
  const results = blocks.filter((block) => block.type === 'web_search_tool_result')
  if (!results.length) {
    throw new WebError('DeepSeek returned no web_search_tool_result blocks; the request may not have triggered its native web search', 'WEB_PROVIDER_ERROR')
  }
  const snippets = citedText(blocks.filter((block) => block.type === 'text'))
  const seen = new Set<string>()
  const sources: WebSearchSource[] = []
  const errors: string[] = []
  for (const block of results) {
    const content: unknown = (block as { content?: unknown }).content
    const failed = ResultError.safeParse(content)
    if (failed.success) errors.push(failed.data.error_code)
    if (!Array.isArray(content)) continue
    for (const raw of content) {
      const item = ResultItem.safeParse(raw)
      if (!item.success || item.data.type !== 'web_search_result' || !item.data.url || seen.has(item.data.url)) continue
      const { url, title, page_age } = item.data
      seen.add(url)
      const snippet = snippets.get(url)
      sources.push({ url, ...(title ? { title } : {}), ...(snippet ? { snippet } : {}), ...(page_age ? { publishedAt: page_age } : {}) })
    }
  }
  if (!sources.length && errors.length) throw new WebError(`DeepSeek's web search failed: ${providerText(errors.join(', '))}`, 'WEB_PROVIDER_ERROR')
  return { sources, truncated: false }
}

/** url → cited text, across all text blocks; the first citation of a URL wins. */
function citedText(blocks: readonly unknown[]): Map<string, string> {
  const snippets = new Map<string, string>()
  for (const block of blocks) {
    const parsed = deepSeekWire().TextBlock.safeParse(block)
    for (const citation of (parsed.success && parsed.data.citations) || []) {
      if (citation.url && citation.cited_text && !snippets.has(citation.url)) snippets.set(citation.url, citation.cited_text)
    }
  }
  return snippets
}

/** The human part of an API error body: `error` (string), `error.message`, or `message`. */
export function errorDetail(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined
  const { error, message } = json as { error?: unknown; message?: unknown }
  if (typeof error === 'string' && error) return error
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' && (error as { message: string }).message) {
    return (error as { message: string }).message
  }
  return typeof message === 'string' && message ? message : undefined
}

import { lazy } from 'dsh-core'
import { collectSources, headerValue, httpFault, optionalText, WebError, type HeaderSource, type ProviderFault, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import type { KeyedRequest, Refusal } from 'dsh-web/keyed-search'
import { z } from 'zod'
import type { BraveSearchConfig } from './config.ts'

/** Brave answers at most 20 web results per request. */
export const MAX_COUNT = 20

/** `<base>/web/search`, keeping a base path. */
export function searchEndpoint(baseURL: string): URL {
  return new URL('web/search', baseURL.endsWith('/') ? baseURL : `${baseURL}/`)
}

/**
 * `GET <base>/web/search?q=…&count=…`: web results only, snippets without highlight markers, the
 * key in `X-Subscription-Token`. The record is the URL (the key is never in it).
 */
export function braveRequest(search: WebSearchRequest, config: BraveSearchConfig, key: string): KeyedRequest {
  const url = searchEndpoint(config.baseURL)
  url.searchParams.set('q', search.query)
  url.searchParams.set('count', String(Math.max(1, Math.min(search.maxResults ?? MAX_COUNT, MAX_COUNT))))
  url.searchParams.set('result_filter', 'web')
  url.searchParams.set('text_decorations', 'false')
  if (config.country) url.searchParams.set('country', config.country)
  if (config.searchLang) url.searchParams.set('search_lang', config.searchLang)
  if (config.safesearch) url.searchParams.set('safesearch', config.safesearch)
  return {
    url,
    method: 'GET',
    headers: { accept: 'application/json', 'x-subscription-token': key, 'user-agent': config.userAgent },
    record: { url: url.href },
  }
}

/**
 * Brave's answer and error shapes, built when the first answer is read: a process that never
 * searches (`dsh tools`, most starts) does not pay for them (issue 27 item 5).
 */
export const braveWire = lazy(() => {
  const text = z.string().nullish()
  // A result's title, snippet or date of another type is left out, not the result (dsh-web's optionalText).
  const field = optionalText()
  // Brave's error answer: `{ type: 'ErrorResponse', error: { code, detail, status, meta } }` (the
  // API reference also shows the error in an `errors` list).
  const ErrorItem = z.looseObject({ code: text, detail: text })
  return {
    Result: z.looseObject({ url: z.string(), title: field, description: field, page_age: field }),
    Response: z.looseObject({ web: z.looseObject({ results: z.array(z.unknown()) }).nullish() }),
    ErrorBody: z.looseObject({ error: ErrorItem.nullish(), errors: z.array(ErrorItem).nullish() }),
  }
})

/** `web.results` as sources (first of each URL kept, empty fields omitted); no `web` is no results. */
export function mapResponse(json: unknown): WebSearchResult {
  const { Response, Result } = braveWire()
  const parsed = Response.safeParse(json)
  if (!parsed.success) throw new WebError(`Brave Search returned JSON that is not a search response: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`, 'WEB_PROVIDER_ERROR')
  const sources = collectSources(
    (parsed.data.web?.results ?? []).flatMap((raw) => {
      const item = Result.safeParse(raw)
      return item.success ? [{ url: item.data.url, title: item.data.title, snippet: item.data.description, publishedAt: item.data.page_age }] : []
    }),
  )
  return { sources, truncated: false }
}

/** Codes that mean the key itself is refused (Brave answers them with 422 as well as 401). */
const KEY_REFUSED = new Set(['SUBSCRIPTION_TOKEN_INVALID', 'SUBSCRIPTION_NOT_FOUND'])

/**
 * What a Brave error answer means. A refused key is `key_refused` (not sent again until it changes); 402 is a spent plan; 429 is rate
 * limited, or a spent quota when a long window ran out, with the wait from `Retry-After` or else
 * Brave's `X-RateLimit-Reset`. Anything else is what the status says for any API.
 */
export function braveRefusal(status: number, headers: HeaderSource, body: unknown): Refusal {
  const parsed = braveWire().ErrorBody.safeParse(body)
  const error = parsed.success ? (parsed.data.error ?? parsed.data.errors?.[0]) : undefined
  const detail = [error?.code, error?.detail].filter(Boolean).join(': ') || undefined
  if (status === 401 || status === 403 || (error?.code && KEY_REFUSED.has(error.code))) return { detail, fault: { kind: 'key_refused' } }
  if (status === 402) return { detail, fault: { kind: 'quota_exhausted' } }
  if (status === 429) return { detail, fault: rateLimitFault(headers) }
  return { detail, fault: httpFault(status, headers) }
}

/**
 * `X-RateLimit-Remaining: 0, 1000` with `X-RateLimit-Reset: 1, 1419704` means the per-second
 * window ran out and comes back in 1 s; a zero in a later (longer) window is the monthly quota.
 */
function rateLimitFault(headers: HeaderSource): ProviderFault {
  const retryAfter = headerValue(headers, 'retry-after')?.trim()
  const resets = numbers(headerValue(headers, 'x-ratelimit-reset'))
  const remaining = numbers(headerValue(headers, 'x-ratelimit-remaining'))
  const spent = remaining.flatMap((left, index) => (left === 0 && resets[index] !== undefined ? [index] : []))
  const quota = spent.some((index) => index > 0)
  const wait = spent.length ? Math.max(...spent.map((index) => resets[index]!)) : resets[0]
  const hint = retryAfter || (wait === undefined ? undefined : String(wait))
  return { kind: quota ? 'quota_exhausted' : 'rate_limited', ...(hint ? { retryAfter: hint } : {}) }
}

/** `1, 1419704` → [1, 1419704]; anything unreadable is left out of the list's end. */
function numbers(value: string | undefined): number[] {
  if (!value) return []
  const parts = value.split(',').map((part) => part.trim())
  const read: number[] = []
  for (const part of parts) {
    if (!/^\d+$/.test(part)) break
    read.push(Number(part))
  }
  return read
}

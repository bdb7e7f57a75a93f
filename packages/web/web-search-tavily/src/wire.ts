import { lazy } from 'dsh-core'
import { collectSources, httpFault, optionalText, WebError, type HeaderSource, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import type { KeyedRequest, Refusal } from 'dsh-web/keyed-search'
import { z } from 'zod'
import type { TavilySearchConfig } from './config.ts'

/** Tavily answers at most 20 results per request. */
export const MAX_RESULTS = 20

/** `<base>/search`, keeping a base path. */
export function searchEndpoint(baseURL: string): URL {
  return new URL('search', baseURL.endsWith('/') ? baseURL : `${baseURL}/`)
}

/** The request body, field order as sent; what the session log records too (the key is only in the header). */
export function requestBody(search: WebSearchRequest, config: TavilySearchConfig) {
  return {
    query: search.query,
    max_results: Math.max(1, Math.min(search.maxResults ?? MAX_RESULTS, MAX_RESULTS)),
    search_depth: config.searchDepth,
    topic: config.topic,
    include_answer: config.includeAnswer,
    ...(config.timeRange ? { time_range: config.timeRange } : {}),
  }
}

/** `POST <base>/search` with the key as a bearer token. */
export function tavilyRequest(search: WebSearchRequest, config: TavilySearchConfig, key: string): KeyedRequest {
  const url = searchEndpoint(config.baseURL)
  const body = requestBody(search, config)
  return {
    url,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json', 'user-agent': config.userAgent },
    body: JSON.stringify(body),
    record: { endpoint: url.href, body },
  }
}

/**
 * Tavily's answer and error shapes, built when the first answer is read: a process that never
 * searches (`dsh tools`, most starts) does not pay for them (issue 27 item 5).
 */
export const tavilyWire = lazy(() => {
  const text = z.string().nullish()
  // A result's title, snippet or date of another type is left out, not the result (dsh-web's optionalText).
  const field = optionalText()
  return {
    Result: z.looseObject({ url: z.string(), title: field, content: field, published_date: field }),
    Response: z.looseObject({ answer: text, results: z.array(z.unknown()) }),
    // Tavily's error answer: `{ "detail": { "error": "…" } }`.
    ErrorBody: z.looseObject({ detail: z.union([z.string(), z.looseObject({ error: text })]).nullish(), error: text, message: text }),
  }
})

/**
 * `results` as sources (first of each URL kept, empty fields omitted); `answer` as the text only
 * when the config asked for one (`includeAnswer`): an `answer` Tavily sends unasked is dropped.
 */
export function mapResponse(json: unknown, includeAnswer: TavilySearchConfig['includeAnswer'] = false): WebSearchResult {
  const { Response, Result } = tavilyWire()
  const parsed = Response.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new WebError(`Tavily returned JSON that is not a search response: ${issue ? `${issue.path.join('.') || 'the body'}: ${issue.message}` : 'unexpected shape'}`, 'WEB_PROVIDER_ERROR')
  }
  const sources = collectSources(
    parsed.data.results.flatMap((raw) => {
      const item = Result.safeParse(raw)
      return item.success ? [{ url: item.data.url, title: item.data.title, snippet: item.data.content, publishedAt: item.data.published_date }] : []
    }),
  )
  const content = includeAnswer ? parsed.data.answer?.trim() : undefined
  return { ...(content ? { content } : {}), sources, truncated: false }
}

/**
 * What a Tavily error answer means: 401 and 403 refuse the key (`key_refused`); 432 (plan limit) and
 * 433 (pay-as-you-go limit) are a spent quota; 429 and 5xx are what they are for any API.
 */
export function tavilyRefusal(status: number, headers: HeaderSource, body: unknown): Refusal {
  const parsed = tavilyWire().ErrorBody.safeParse(body)
  const detail = parsed.success ? (typeof parsed.data.detail === 'string' ? parsed.data.detail : (parsed.data.detail?.error ?? parsed.data.error ?? parsed.data.message)) || undefined : undefined
  if (status === 401 || status === 403) return { detail, fault: { kind: 'key_refused' } }
  if (status === 432 || status === 433) return { detail, fault: { kind: 'quota_exhausted' } }
  return { detail, fault: httpFault(status, headers) }
}

import { collectSources, optionalText, WebError, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import { z } from 'zod'
import type { SearxngConfig } from './config.ts'

/** `<base>/<path>`, keeping a base path (`https://host/searx` → `https://host/searx/search`). */
export function endpoint(baseUrl: string, path: 'search' | 'config'): URL {
  return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
}

/** `GET <base>/search?q=…&format=json`, plus the optional instance parameters that are configured. */
export function searchUrl(request: WebSearchRequest, config: SearxngConfig): URL {
  const url = endpoint(config.baseUrl, 'search')
  url.searchParams.set('q', request.query)
  url.searchParams.set('format', 'json')
  if (config.language) url.searchParams.set('language', config.language)
  if (config.categories) url.searchParams.set('categories', config.categories.join(','))
  if (config.safesearch !== undefined) url.searchParams.set('safesearch', String(config.safesearch))
  return url
}

// A title, snippet or date of another type (a number, an object) is left out, not the result: its URL is what is cited.
const field = optionalText()
const Result = z.looseObject({ url: z.string(), title: field, content: field, publishedDate: field })
const Answer = z.union([z.string(), z.looseObject({ answer: z.string() })])
const Response = z.looseObject({
  results: z.array(z.unknown()),
  answers: z.array(z.unknown()).optional(),
  // `[engine, reason]` pairs for the engines that failed this query.
  unresponsive_engines: z.array(z.array(z.unknown())).optional(),
})

/**
 * SearXNG's answer in the seam's vocabulary: results become sources (first of each URL kept, empty
 * fields omitted), instant answers become `content`. An empty list that engine failures explain is
 * an error, so the model is not told there is nothing to find.
 */
export function mapResponse(json: unknown): WebSearchResult {
  const parsed = Response.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new WebError(`SearXNG returned JSON that is not a search response: ${issue ? `${issue.path.join('.') || 'the body'}: ${issue.message}` : 'unexpected shape'}`, 'WEB_PROVIDER_ERROR')
  }
  const { results, answers = [], unresponsive_engines: unresponsive = [] } = parsed.data
  const sources = collectSources(
    results.flatMap((raw) => {
      const item = Result.safeParse(raw)
      return item.success ? [{ url: item.data.url, title: item.data.title, snippet: item.data.content, publishedAt: item.data.publishedDate }] : []
    }),
  )
  const content = answers
    .map((raw) => Answer.safeParse(raw))
    .map((answer) => (answer.success ? (typeof answer.data === 'string' ? answer.data : answer.data.answer).trim() : ''))
    .filter(Boolean)
    .join('\n\n')
  if (!sources.length && !content && unresponsive.length) {
    const engines = unresponsive.map(([engine, reason]) => `${String(engine)} (${String(reason)})`).join(', ')
    throw new WebError(`SearXNG found nothing because its engines did not answer: ${engines}`, 'WEB_PROVIDER_ERROR')
  }
  return { ...(content ? { content } : {}), sources, truncated: false }
}

/** What a failed `/search` status means on a SearXNG instance. */
export function statusMessage(status: number, statusText: string): string {
  const head = `SearXNG answered HTTP ${status}${statusText ? ` (${statusText})` : ''}`
  switch (status) {
    case 403:
      return `${head}: the instance does not serve format=json; add json to search.formats in its settings.yml`
    case 429:
      return `${head}: the instance's limiter refused the request; turn server.limiter off for a private instance`
    default:
      return head
  }
}

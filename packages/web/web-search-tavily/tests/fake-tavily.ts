import { json, loopbackApi, type LoopbackApi, type Reply } from '../../web/tests/loopback-api.ts'

// Tavily Search API answers as its API reference and error-code page describe them: `results` with
// `content` snippets and an optional `answer`; errors as `{ "detail": { "error": "…" } }` with 400,
// 401, 429, 432 (plan limit) and 433 (pay-as-you-go limit).

export interface FakeTavily extends LoopbackApi {
  /** The base URL to configure (the origin; `/search` is appended). */
  readonly baseURL: string
}

export async function fakeTavily(reply: Reply = results()): Promise<FakeTavily> {
  const api = await loopbackApi(reply)
  return Object.assign(api, { baseURL: api.origin })
}

export interface TavilyResult {
  readonly url: string
  readonly title?: string
  readonly content?: string
  readonly published_date?: string
}

export const CORDIS: TavilyResult[] = [
  { url: 'https://cordis.io/', title: 'Cordis', content: 'Meta-framework for modern JavaScript applications.' },
  { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis', content: 'The repository.', published_date: 'Thu, 01 Jan 2026 00:00:00 GMT' },
]

export function results(items: readonly TavilyResult[] = CORDIS, answer?: string): Reply {
  return json(200, {
    query: 'cordis',
    ...(answer === undefined ? {} : { answer }),
    images: [],
    results: items.map((item) => ({ score: 0.9, raw_content: null, favicon: 'https://cordis.io/favicon.ico', ...item })),
    response_time: 1.09,
    request_id: '123e4567-e89b-12d3-a456-426614174111',
  })
}

export function refused(status: number, error: string, headers: Record<string, string> = {}): Reply {
  return json(status, { detail: { error } }, headers)
}

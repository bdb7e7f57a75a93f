import { json, loopbackApi, type LoopbackApi, type Reply } from '../../web/tests/loopback-api.ts'

// Brave Search API answers as the API reference and its response-headers page describe them: the
// web results, the ErrorResponse body, and the X-RateLimit-* headers (per-second and per-month
// windows, comma-separated).

export interface FakeBrave extends LoopbackApi {
  /** The base URL to configure: `<origin>/res/v1`. */
  readonly baseURL: string
}

export async function fakeBrave(reply: Reply = results()): Promise<FakeBrave> {
  const api = await loopbackApi(reply)
  return Object.assign(api, { baseURL: `${api.origin}/res/v1` })
}

const QUOTA = { 'x-ratelimit-limit': '1, 15000', 'x-ratelimit-policy': '1;w=1, 15000;w=2592000' }

export interface BraveResult {
  readonly url: string
  readonly title?: string
  readonly description?: string
  readonly page_age?: string
}

export const CORDIS: BraveResult[] = [
  { url: 'https://cordis.io/', title: 'Cordis', description: 'Meta-framework for modern JavaScript applications.', page_age: '2026-01-02T00:00:00' },
  { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis' },
]

export function results(items: readonly BraveResult[] = CORDIS): Reply {
  return json(
    200,
    {
      type: 'search',
      query: { original: 'cordis', more_results_available: false },
      web: { type: 'search', family_friendly: true, results: items.map((item) => ({ type: 'search_result', language: 'en', profile: { name: 'site' }, ...item })) },
    },
    { ...QUOTA, 'x-ratelimit-remaining': '0, 14999', 'x-ratelimit-reset': '1, 1419704' },
  )
}

function errorBody(status: number, code: string, detail: string) {
  return { type: 'ErrorResponse', error: { id: '5d832250-9396-4f6e-b84a-2a1fe524cd7d', status, code, detail, meta: { component: 'rate_limiter' } }, time: 1663072993 }
}

/** 429 for the per-second window (remaining `0, n`), optionally with a Retry-After. */
export function rateLimited(options: { retryAfter?: string; reset?: string; remaining?: string } = {}): Reply {
  return json(429, errorBody(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.'), {
    ...QUOTA,
    'x-ratelimit-remaining': options.remaining ?? '0, 14000',
    'x-ratelimit-reset': options.reset ?? '1, 1419704',
    ...(options.retryAfter ? { 'retry-after': options.retryAfter } : {}),
  })
}

export const invalidToken: Reply = json(422, errorBody(422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'))

export function validation(detail: string): Reply {
  return json(422, errorBody(422, 'VALIDATION', detail))
}

/**
 * A 200 whose body stops half-way: `stall` keeps the connection open and sends nothing more (the
 * provider's deadline ends it), `drop` closes the connection.
 */
export function halfAnswer(then: 'stall' | 'drop'): Reply {
  return (_request, response) => {
    const body = JSON.stringify({ type: 'search', web: { type: 'search', results: CORDIS } })
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) })
    response.write(body.slice(0, body.length >> 1), () => {
      if (then === 'drop') response.socket?.destroy()
    })
  }
}

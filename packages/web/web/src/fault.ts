/**
 * Why a search provider could not serve, as far as choosing another provider goes. A provider puts
 * one on its `WebError` (`fault`) when the failure says something about the provider, not about
 * the request: the seam then cools the provider down and tries the next one. A failure without a
 * fault (a query the API refuses, a caller's abort) is returned to the caller as it is.
 *
 * - `rate_limited`: HTTP 429 or the like; `retryAfter` when the API said when to come back.
 * - `quota_exhausted`: the plan's quota is spent (Tavily 432/433, Brave's monthly window); without
 *   `retryAfter` the cooldown is the longest one (`searchMaxCooldownMs`).
 * - `unavailable`: 5xx, unreachable, a broken connection, its own deadline ran out.
 * - `failing`: time alone will not fix it: the answer is unreadable, a redirect was refused.
 * - `key_refused`: the API refused the key (401, 403, or its own code for it). The provider is
 *   `failing` until its key changes: a provider reporting it must not send that key again (the
 *   keyed-search providers refuse it locally, without a request), so the seam lets every search
 *   reach the provider, which either fails at once or tries its new key.
 */
export type ProviderFault =
  | { readonly kind: 'rate_limited'; readonly retryAfter?: string }
  | { readonly kind: 'quota_exhausted'; readonly retryAfter?: string }
  | { readonly kind: 'unavailable'; readonly retryAfter?: string }
  | { readonly kind: 'failing' }
  | { readonly kind: 'key_refused' }

/** Response headers as `fetch` (a `Headers`) or undici's `request` (a plain record) gives them. */
export type HeaderSource = Headers | Readonly<Record<string, string | string[] | undefined>>

export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const value = (headers as Readonly<Record<string, string | string[] | undefined>>)[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The fault an HTTP error status means for any API, with its `Retry-After`: 429 is `rate_limited`,
 * 408 and 5xx are `unavailable`. Anything else (400, 404, 422 …) is the request's problem: no fault.
 * A provider refines this with what its API says (a refused key, a spent quota).
 */
export function httpFault(status: number, headers: HeaderSource): ProviderFault | undefined {
  const retryAfter = headerValue(headers, 'retry-after')?.trim() || undefined
  const hint = retryAfter === undefined ? {} : { retryAfter }
  if (status === 429) return { kind: 'rate_limited', ...hint }
  if (status === 408 || (status >= 500 && status <= 599)) return { kind: 'unavailable', ...hint }
  return undefined
}

/**
 * A `Retry-After` value in milliseconds from `now`: delay-seconds (`120`) or an HTTP-date (`Wed, 21
 * Oct 2015 07:28:00 GMT`; a past date is 0). Undefined when it is neither, so the caller uses its
 * default.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // Only the date forms HTTP allows; Date.parse alone would take "5" or "tomorrow-ish" strings.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

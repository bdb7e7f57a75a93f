import { httpFault, type HeaderSource, type ProviderFault, type WebSearchProvider } from 'dsh-web'
import { keyedSearchProvider, missingKeyMessage as keyedMissingKey, type KeyedRequest, type KeyedSearchSpec, type Refusal } from 'dsh-web/keyed-search'
import type { Dispatcher } from 'undici'
import type { SearchOptions } from './config.ts'
import { errorDetail, mapResponse, messagesEndpoint, requestBody, type RequestBody } from './wire.ts'

/** The session event recorded before every dispatch: what went to the auxiliary model, without secrets. */
export const REQUEST_EVENT = 'web/deepseek-search-llm-request'

export const PROVIDER_ID = 'deepseek-official'

export interface RecordedRequest {
  readonly endpoint: string
  readonly apiVersion: string
  readonly body: RequestBody
}

export interface DeepSeekSearchProviderOptions {
  /** Read once at the start of every search (and by every status check). */
  readonly options: () => SearchOptions
  /** Resolves a credential by name, per call, never cached. `cwd` picks the project `.env`. */
  readonly resolveKey: (name: string, cwd?: string) => Promise<string | undefined>
  /** Sends the request: an undici `Agent`, or anything with its `request`. */
  readonly dispatcher: Pick<Dispatcher, 'request'>
  /** Where the request record goes; by default the calling session's log (nothing without one). */
  readonly record?: (request: RecordedRequest) => void
}

/**
 * The `deepseek-official` search provider as a keyed search (dsh-web/keyed-search): one
 * Anthropic-compatible Messages call per query with the native `web_search_20250305` tool, sent
 * through the keyed default send (undici's `request`). The keyed part (key per search, record first, redirects refused,
 * deadline, bounded body, coded faults, a refused key kept refused) is shared with Brave and Tavily.
 */
export function deepSeekSearchSpec(deps: Omit<DeepSeekSearchProviderOptions, 'resolveKey' | 'dispatcher'>): Omit<KeyedSearchSpec<SearchOptions>, 'resolveKey' | 'lifetime'> {
  return {
    id: PROVIDER_ID,
    name: 'DeepSeek',
    row: 'web-search-deepseek',
    event: REQUEST_EVENT,
    options: deps.options,
    endpoint: (options) => messagesEndpoint(options.baseURL),
    unusable: (options) => (URL.canParse(options.baseURL) ? undefined : `the endpoint "${options.baseURL}" is not a URL (check DEEPSEEK_SEARCH_BASE_URL)`),
    request: deepSeekRequest,
    refusal: deepSeekRefusal,
    map: (body) => mapResponse(body),
    ...(deps.record ? { record: (_event: string, data: unknown) => deps.record!(data as RecordedRequest) } : {}),
  }
}

export function deepSeekSearchProvider(deps: DeepSeekSearchProviderOptions): WebSearchProvider {
  return keyedSearchProvider({ ...deepSeekSearchSpec(deps), dispatcher: deps.dispatcher, resolveKey: deps.resolveKey })
}

/** `POST <base>/messages` with the key in both headers the Anthropic-compatible API reads. */
export function deepSeekRequest(search: { readonly query: string }, options: SearchOptions, key: string): KeyedRequest {
  const url = new URL(messagesEndpoint(options.baseURL))
  const body = requestBody(search.query, options)
  const record: RecordedRequest = { endpoint: url.href, apiVersion: options.apiVersion, body }
  return {
    url,
    method: 'POST',
    headers: {
      'x-api-key': key,
      authorization: `Bearer ${key}`,
      'anthropic-version': options.apiVersion,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': options.userAgent,
    },
    body: JSON.stringify(body),
    record,
  }
}

/** A refused key is `key_refused`, 402 (no balance left) a spent quota; 429 and 5xx as for any API. */
export function deepSeekRefusal(status: number, headers: HeaderSource, body: unknown): Refusal {
  return { detail: errorDetail(body), fault: refusalFault(status, headers) }
}

function refusalFault(status: number, headers: HeaderSource): ProviderFault | undefined {
  if (status === 401 || status === 403) return { kind: 'key_refused' }
  if (status === 402) return { kind: 'quota_exhausted' }
  return httpFault(status, headers)
}

export function missingKeyMessage(name: string): string {
  return keyedMissingKey('DeepSeek', name, 'web-search-deepseek')
}

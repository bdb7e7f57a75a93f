import type { Readable } from 'node:stream'
import { currentSession, deadline, errorMessage, raceAbort, type CapabilityStatus, type ProbeContext } from 'dsh-core'
import { httpFault, providerText, WebError, type ProviderFault, type WebSearchProvider, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import { missingKeyMessage as keyedMissingKey } from 'dsh-web/keyed-search'
import type { Dispatcher } from 'undici'
import type { SearchOptions } from './config.ts'
import { errorDetail, mapResponse, messagesEndpoint, requestBody, type RequestBody } from './wire.ts'

/** The session event recorded before every dispatch: what went to the auxiliary model, without secrets. */
export const REQUEST_EVENT = 'web/deepseek-search-llm-request'

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
 * The `deepseek-official` search provider: one Anthropic-compatible Messages call per query with
 * the native `web_search_20250305` tool. Redirects are refused so the key never leaves the
 * configured endpoint; the provider has a deadline of its own.
 */
export class DeepSeekSearchProvider implements WebSearchProvider {
  readonly id = 'deepseek-official'

  constructor(private readonly deps: DeepSeekSearchProviderOptions) {}

  /** Local and synchronous: the endpoint parses. A missing key shows at search time and in the probe. */
  available(): boolean {
    return URL.canParse(this.deps.options().baseURL)
  }

  status(): CapabilityStatus {
    const options = this.deps.options()
    if (!URL.canParse(options.baseURL)) return { state: 'unavailable', detail: `the endpoint "${options.baseURL}" is not a URL (check DEEPSEEK_SEARCH_BASE_URL)` }
    if (options.apiKey) return { state: 'ready', detail: `literal apiKey; ${messagesEndpoint(options.baseURL)}` }
    return { state: 'idle', detail: `key ${options.apiKeyEnv} is resolved at each search; ${messagesEndpoint(options.baseURL)}` }
  }

  /** Resolves the key the way a search would, and never calls the API. */
  async probe(context: ProbeContext): Promise<CapabilityStatus> {
    const options = this.deps.options()
    const own = this.status()
    if (own.state === 'unavailable' || options.apiKey) return own
    const key = await raceAbort(this.deps.resolveKey(options.apiKeyEnv, context.cwd), context.signal)
    if (!key) return { state: 'no_credential', detail: missingKeyMessage(options.apiKeyEnv) }
    return { state: 'ready', detail: `key ${options.apiKeyEnv} found; ${messagesEndpoint(options.baseURL)}` }
  }

  async search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult> {
    const options = this.deps.options()
    if (signal?.aborted) throw aborted(signal)
    const budget = deadline(signal, options.timeoutMs, 'WEB_SEARCH_TIMEOUT')
    // Set once a success answer is arriving: a failure after that is `partial`, never failed over.
    let underWay = false
    try {
      const key = await this.key(options, budget.signal)
      if (budget.signal.aborted) throw aborted(budget.signal)
      const endpoint = new URL(messagesEndpoint(options.baseURL))
      const body = requestBody(request.query, options)
      this.record({ endpoint: endpoint.href, apiVersion: options.apiVersion, body })
      if (budget.signal.aborted) throw aborted(budget.signal)
      const response = await this.deps.dispatcher.request({
        origin: endpoint.origin,
        path: `${endpoint.pathname}${endpoint.search}`,
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
        signal: budget.signal,
      })
      underWay = response.statusCode >= 200 && response.statusCode < 300
      return await this.answer(response, options, key)
    } catch (error) {
      const partial = underWay && !(error instanceof WebError)
      if (budget.expired) throw new WebError(`DeepSeek search timed out after ${options.timeoutMs} ms${partial ? ' while its answer was arriving' : ''}`, 'WEB_SEARCH_TIMEOUT', { cause: error, partial })
      if (signal?.aborted) throw aborted(signal)
      if (error instanceof WebError) throw error
      if (partial) throw new WebError(`DeepSeek search answer broke off before its end: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' }, partial })
      throw new WebError(`DeepSeek search request failed: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' } })
    } finally {
      budget.dispose()
    }
  }

  private async key(options: SearchOptions, signal: AbortSignal): Promise<string> {
    if (options.apiKey) return options.apiKey
    let key: string | undefined
    try {
      key = await raceAbort(this.deps.resolveKey(options.apiKeyEnv), signal)
    } catch (error) {
      if (signal.aborted) throw aborted(signal)
      throw new WebError(`DeepSeek search credential resolution failed: ${String(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
    if (!key) throw new WebError(missingKeyMessage(options.apiKeyEnv), 'WEB_PROVIDER_CREDENTIAL_MISSING')
    return key
  }

  private record(request: RecordedRequest): void {
    try {
      if (this.deps.record) this.deps.record(request)
      else currentSession()?.append(REQUEST_EVENT, request)
    } catch (error) {
      // Nothing reaches the auxiliary model unless it was logged.
      throw new WebError(`DeepSeek search was not sent: its request could not be recorded: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
  }

  private async answer(response: Dispatcher.ResponseData, options: SearchOptions, key: string): Promise<WebSearchResult> {
    const { statusCode } = response
    if (statusCode >= 300 && statusCode < 400) {
      discard(response.body as Readable)
      throw new WebError(`DeepSeek search was redirected (HTTP ${statusCode}); redirects are not followed, so the key stays with the configured endpoint`, 'WEB_PROVIDER_ERROR', { fault: FAILING })
    }
    const text = await readBounded(response.body as Readable, options.maxResponseBytes)
    if (statusCode < 200 || statusCode >= 300) {
      // The body is the endpoint's text: it may echo the key, span lines, or run long.
      const detail = errorDetail(parseJson(text))
      const fault = refusalFault(statusCode, response.headers)
      throw new WebError(`DeepSeek API error (HTTP ${statusCode})${detail ? `: ${providerText(detail, [key, options.apiKey])}` : ''}`, 'WEB_PROVIDER_ERROR', fault ? { fault } : undefined)
    }
    const json = parseJson(text)
    if (json === undefined) throw new WebError('DeepSeek returned an unprocessable response body: not JSON', 'WEB_PROVIDER_ERROR', { fault: FAILING })
    try {
      return mapResponse(json)
    } catch (error) {
      // An answer without native results (or of the wrong shape) is the provider not serving: another may.
      throw error instanceof WebError ? new WebError(error.message, error.code, { cause: error, fault: FAILING }) : error
    }
  }
}

export function missingKeyMessage(name: string): string {
  return keyedMissingKey('DeepSeek search', name, 'web-search-deepseek')
}

const FAILING: ProviderFault = { kind: 'failing' }

/** A refused key is failing, 402 (no balance left) a spent quota; 429 and 5xx as for any API. */
function refusalFault(status: number, headers: Dispatcher.ResponseData['headers']): ProviderFault | undefined {
  if (status === 401 || status === 403) return FAILING
  if (status === 402) return { kind: 'quota_exhausted' }
  return httpFault(status, headers)
}

function aborted(signal: AbortSignal): WebError {
  return new WebError('DeepSeek search aborted', 'WEB_ABORTED', { cause: signal.reason })
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

async function readBounded(body: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = []
  let length = 0
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      length += chunk.byteLength
      if (length > maxBytes) throw new WebError(`DeepSeek returned more than ${maxBytes} bytes`, 'WEB_PROVIDER_ERROR', { fault: FAILING })
      chunks.push(chunk)
    }
  } finally {
    discard(body)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function discard(stream: Readable): void {
  stream.on('error', () => {})
  stream.destroy()
}

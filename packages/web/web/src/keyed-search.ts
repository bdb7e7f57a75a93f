import type { Readable } from 'node:stream'
import type { Context } from 'cordis'
import type {} from './service.ts'
import { currentSession, errorMessage, hostEnv, lazyAgent, Lifetime, scopeLifetime, type CapabilityStatus, type ProbeContext } from 'dsh-core'
import type { Dispatcher } from 'undici'
import { WebError } from './errors.ts'
import { headerValue, type HeaderSource, type ProviderFault } from './fault.ts'
import { providerText } from './provider-text.ts'
import { redactResult } from './sources.ts'
import type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './types.ts'

// `dsh-web/keyed-search`: the part every search provider for an HTTP JSON API with an API key
// shares, so a provider package holds only its API's shape (request, error answers, mapping).
// The key is resolved at every search and never cached; the request is recorded, without the key,
// before it is sent; redirects are refused so the key never leaves the configured endpoint; the
// provider has its own deadline; every failure is a coded WebError, with a `fault` when it is the
// provider's (so a failover list moves on), and `partial` when a success answer broke off. A key the
// API refused is not sent again until it changes (issue 31 item 7), and no status calls a key
// `ready` before a search has seen the API accept it.

/** The options every keyed provider has; its config adds its own. Read once per search. */
export interface KeyedSearchOptions {
  /** A literal key; wins over `apiKeyEnv`. */
  readonly apiKey?: string | undefined
  /** The credential resolved at every search (ctx.credentials: environment, project .env, user .env). */
  readonly apiKeyEnv: string
  /** The provider's own deadline for one search (key, request and body). */
  readonly timeoutMs: number
  /** Largest response body read; a bigger one is a failing provider. */
  readonly maxResponseBytes: number
}

/** One HTTP request to the API. */
export interface KeyedRequest {
  readonly url: URL
  readonly method: 'GET' | 'POST'
  /** The key goes here (or in `body`); nothing of it goes into `record`. */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  /** What the session log keeps of the request: endpoint and parameters, never the key. */
  readonly record: unknown
}

/** An answer as `send` gives it: the status, the headers, and the body not read yet. */
export interface KeyedResponse {
  readonly status: number
  readonly headers: HeaderSource
  /** Read once, by the provider; leaving its loop early must release the connection. */
  readonly body: AsyncIterable<Uint8Array> | null
  /** Drops what was not read (a redirect's body, the rest after an error); safe to call twice. */
  discard(): void
}

/** What an error answer means: its text for the message, and the fault when it is the provider's. */
export interface Refusal {
  readonly detail?: string | undefined
  readonly fault?: ProviderFault | undefined
}

export interface KeyedSearchSpec<Options extends KeyedSearchOptions> {
  readonly id: string
  /** The API's name in messages: `Brave Search`. */
  readonly name: string
  /** The plugin's row name, for the literal-key remedy: `web-search-brave`. */
  readonly row: string
  /** The session event recorded before each request: `web/brave-search-request`. */
  readonly event: string
  /** Read once at the start of every search, and by every status check. */
  readonly options: () => Options
  /** The endpoint a status row names. */
  readonly endpoint: (options: Options) => string
  /** Why options that passed the config check cannot work now (an endpoint from the environment that is no URL); undefined when they can. */
  readonly unusable?: (options: Options) => string | undefined
  /** A credential by name, per call, never cached; `cwd` picks the project `.env`. */
  readonly resolveKey: (name: string, cwd?: string) => Promise<string | undefined>
  readonly request: (search: WebSearchRequest, options: Options, key: string) => KeyedRequest
  /**
   * Sends the request without following redirects and honouring `signal`. Default: undici's
   * `request` over `dispatcher` (which never follows a redirect on its own).
   */
  readonly send?: (request: KeyedRequest, signal: AbortSignal) => Promise<KeyedResponse>
  /**
   * What the default `send` dispatches through: an undici `Agent`, or anything with its `request`.
   * registerKeyedSearch gives the plugin's own Agent. Not the global `fetch`: a search over it took about
   * 5x the CPU of one over an own Agent (4.7-5.0x, bench/RESULTS.md, "keyed search sends through undici"), and a private Agent ignores a global dispatcher
   * (`setGlobalDispatcher`) the way dsh-web-fetch-http's does. One of `send` and `dispatcher` is needed.
   */
  readonly dispatcher?: Pick<Dispatcher, 'request'>
  /** Reads a non-2xx answer (its JSON body, when it has one). `key_refused` marks the key refused. */
  readonly refusal: (status: number, headers: HeaderSource, body: unknown) => Refusal
  /** Maps a 2xx JSON body; throws WebError for a shape it cannot read. */
  readonly map: (body: unknown, search: WebSearchRequest) => WebSearchResult
  /** Where the request record goes; by default the calling session's log (nothing outside a session). */
  readonly record?: (event: string, data: unknown) => void
  /** The plugin's lifetime: each search is its child, so whatever is in flight ends when the plugin unloads. */
  readonly lifetime?: Lifetime
}

/**
 * What the API last said of the last key a search sent: accepted, or refused (with the error the
 * refusal gave). The key is held as the request it went into held it, to know it again with a string
 * compare; it is still looked up at every search, never used in place of a lookup.
 */
interface KeyVerdict {
  readonly key: string
  readonly refusal: WebError | undefined
  readonly at: number
}

/** The provider object for `ctx.web.registerSearchProvider`. */
export function keyedSearchProvider<Options extends KeyedSearchOptions>(spec: KeyedSearchSpec<Options>): WebSearchProvider {
  const { id, name } = spec
  const { dispatcher } = spec
  if (!spec.send && !dispatcher) throw new TypeError(`keyed search ${id}: give it a send or a dispatcher`)
  const send = spec.send ?? ((request: KeyedRequest, signal: AbortSignal) => dispatchSend(dispatcher!, request, signal))
  const fail = (message: string, code: string, options?: { cause?: unknown; fault?: ProviderFault; partial?: boolean }) => new WebError(message, code, options)
  // Kept for the last key used only: a key that changes back to a refused one is tried again once.
  let verdict: KeyVerdict | undefined

  async function key(options: Options, lifetime: Lifetime, cwd?: string): Promise<string | undefined> {
    if (options.apiKey) return options.apiKey
    try {
      return await lifetime.race(spec.resolveKey(options.apiKeyEnv, cwd))
    } catch (error) {
      if (lifetime.aborted) throw error
      throw fail(`${name} credential lookup failed: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
  }

  function record(data: unknown): void {
    try {
      if (spec.record) spec.record(spec.event, data)
      else currentSession()?.append(spec.event, data)
    } catch (error) {
      // Nothing is sent unless it was logged.
      throw fail(`${name} search was not sent: its request could not be recorded: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
  }

  async function answer(response: KeyedResponse, options: Options, secret: string, search: WebSearchRequest): Promise<WebSearchResult> {
    const { status } = response
    if (status >= 300 && status < 400) {
      response.discard()
      throw fail(`${name} search was redirected (HTTP ${status}); redirects are not followed, so the key stays with the configured endpoint`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
    }
    const text = await readBounded(response, options.maxResponseBytes, name)
    const json = parseJson(text)
    if (status < 200 || status >= 300) {
      const refusal = spec.refusal(status, response.headers, json)
      // The body is the API's text: it may echo the key, span lines, or run long.
      const detail = refusal.detail ? `: ${providerText(refusal.detail, [secret])}` : ''
      if (refusal.fault?.kind === 'key_refused') throw fail(`${name} API error (HTTP ${status})${detail}; its key ${keyLabel(options)} was refused and is not sent again until it changes`, 'WEB_PROVIDER_KEY_REFUSED', { fault: refusal.fault })
      throw fail(`${name} API error (HTTP ${status})${detail}`, 'WEB_PROVIDER_ERROR', refusal.fault ? { fault: refusal.fault } : undefined)
    }
    if (json === undefined) throw fail(`${name} returned a body that is not JSON (content-type ${headerValue(response.headers, 'content-type') ?? 'none'})`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
    let result: WebSearchResult
    try {
      result = spec.map(json, search)
    } catch (error) {
      // An answer of the wrong shape is the provider's fault: another one may do better.
      throw fail(error instanceof WebError ? error.message : `${name} returned an unreadable answer: ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'failing' } })
    }
    // A success answer may echo the key too (in a result's URL, title or snippet).
    return redactResult(result, [secret])
  }

  /** What is known of `key` without calling the API: refused, accepted, or not verified yet. */
  function keyStatus(options: Options, key: string, found: string): CapabilityStatus {
    const endpoint = spec.endpoint(options)
    if (verdict?.key === key) {
      if (verdict.refusal) return { state: 'failing', detail: `${verdict.refusal.message}; ${endpoint}` }
      return { state: 'ready', detail: `${found}; accepted by a search at ${new Date(verdict.at).toISOString()}; ${endpoint}` }
    }
    return { state: 'idle', detail: `${found}; not verified: dsh status does not call the API, a search does (a refused key then shows as failing); ${endpoint}` }
  }

  function status(): CapabilityStatus {
    const options = spec.options()
    const unusable = spec.unusable?.(options)
    if (unusable) return { state: 'unavailable', detail: unusable }
    const endpoint = spec.endpoint(options)
    if (options.apiKey) return keyStatus(options, options.apiKey, 'literal apiKey')
    // The key may have changed since the last search; only a probe looks.
    if (verdict?.refusal) return { state: 'failing', detail: `${verdict.refusal.message}; ${endpoint}` }
    if (verdict) return { state: 'ready', detail: `key ${options.apiKeyEnv} accepted by a search at ${new Date(verdict.at).toISOString()}; ${endpoint}` }
    return { state: 'idle', detail: `key ${options.apiKeyEnv} is looked up at each search; ${endpoint}` }
  }

  return {
    id,
    // The config was validated at load; a missing key shows at search time and in the probe.
    available: () => spec.unusable?.(spec.options()) === undefined,
    status,

    /** Looks the key up the way a search would (with the probed workspace's `.env`); never calls the API. */
    async probe(context: ProbeContext): Promise<CapabilityStatus> {
      const options = spec.options()
      if (options.apiKey || spec.unusable?.(options)) return status()
      const found = await Lifetime.run({ signal: context.signal }, (lifetime) => key(options, lifetime, context.cwd))
      if (!found) return { state: 'no_credential', detail: missingKeyMessage(name, options.apiKeyEnv, spec.row) }
      return keyStatus(options, found, `key ${options.apiKeyEnv} found`)
    },

    async search(search, signal) {
      const options = spec.options()
      if (signal?.aborted) throw fail(`${name} search aborted`, 'WEB_ABORTED', { cause: signal.reason })
      const budget = spec.lifetime ? spec.lifetime.child({ timeoutMs: options.timeoutMs, code: 'WEB_SEARCH_TIMEOUT', signal }) : Lifetime.following(signal, { timeoutMs: options.timeoutMs, code: 'WEB_SEARCH_TIMEOUT' })
      return run(search, options, signal, budget)
    },

    /** The search as a child of the caller's lifetime (a tool call's); the plugin's unloading still ends it. */
    async searchWithin(search, lifetime) {
      const options = spec.options()
      if (lifetime.aborted) throw fail(`${name} search aborted`, 'WEB_ABORTED', { cause: lifetime.reason })
      const budget = lifetime.child({ timeoutMs: options.timeoutMs, code: 'WEB_SEARCH_TIMEOUT' })
      const unlink = spec.lifetime?.onAbort((reason) => budget.abort(reason))
      try {
        return await run(search, options, lifetime, budget)
      } finally {
        unlink?.()
      }
    },
  }

  /** One search on `budget`; `caller` is what the caller bounds it by, for telling its abort from the rest. */
  async function run(search: WebSearchRequest, options: Options, caller: { readonly aborted: boolean; readonly reason: unknown } | undefined, budget: Lifetime): Promise<WebSearchResult> {
    let secret = ''
    // Set once a success answer is arriving: a failure after that is `partial`, never failed over.
    let underWay = false
    try {
      const found = await key(options, budget)
      if (!found) throw fail(missingKeyMessage(name, options.apiKeyEnv, spec.row), 'WEB_PROVIDER_CREDENTIAL_MISSING')
      secret = found
      if (verdict?.key === found && verdict.refusal) throw verdict.refusal
      const request = spec.request(search, options, found)
      record(request.record)
      budget.throwIfAborted()
      const response = await send(request, budget.signal)
      underWay = response.status >= 200 && response.status < 300
      const result = await answer(response, options, secret, search)
      verdict = { key: secret, refusal: undefined, at: Date.now() }
      return result
    } catch (error) {
      if (error instanceof WebError && error.code === 'WEB_PROVIDER_KEY_REFUSED') {
        if (verdict?.refusal !== error) verdict = { key: secret, refusal: error, at: Date.now() }
        throw error
      }
      const partial = underWay && !(error instanceof WebError)
      if (budget.expired) throw fail(`${name} search timed out after ${options.timeoutMs} ms${partial ? ' while its answer was arriving' : ''}`, 'WEB_SEARCH_TIMEOUT', { cause: error, partial })
      if (caller?.aborted) throw fail(`${name} search aborted`, 'WEB_ABORTED', { cause: caller.reason })
      if (spec.lifetime?.aborted) throw fail(`${name} search aborted: the provider was unloaded`, 'WEB_ABORTED', { cause: error })
      if (error instanceof WebError) throw error
      // A wrapper (a custom `send` over fetch: `fetch failed`) may hide the socket error in `cause`.
      const reason = providerText(socketReason(error), [secret])
      if (partial) throw fail(`${name} answer broke off before its end: ${reason}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' }, partial })
      throw fail(`${name} request failed: ${reason}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' } })
    } finally {
      budget.dispose()
    }
  }
}

/** How a message names the key: its variable, or the literal one in the row's config. */
function keyLabel(options: KeyedSearchOptions): string {
  return options.apiKey ? '(the literal apiKey)' : options.apiKeyEnv
}

/** The default `send`: undici's `request` over `dispatcher`, which never follows a redirect on its own. */
export async function dispatchSend(dispatcher: Pick<Dispatcher, 'request'>, request: KeyedRequest, signal: AbortSignal): Promise<KeyedResponse> {
  const { url } = request
  const response = await dispatcher.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: request.method, headers: request.headers, body: request.body ?? null, signal })
  const stream = response.body as Readable
  return {
    status: response.statusCode,
    headers: response.headers,
    body: stream,
    discard: () => {
      stream.on('error', () => {})
      stream.destroy()
    },
  }
}

/** The message of a missing key, with the three remedies. */
export function missingKeyMessage(name: string, keyName: string, row: string): string {
  return [
    `${name} has no API key for "${keyName}".`,
    `Store it as ${keyName} in ~/.dsh/.env, or in the project's .env once its workspace is trusted (dsh trust), for the credentials service, export ${keyName} in the environment that launches dsh, or set a literal apiKey in the ${row} config.`,
  ].join(' ')
}

/**
 * Registers a keyed provider from a plugin's `apply`: keys through ctx.credentials (else the process
 * environment), requests through the plugin's own undici Agent (made at the first search, destroyed
 * and awaited when the plugin unloads), and searches still in flight end with WEB_ABORTED when the
 * plugin unloads (the seam removes the provider itself). Returns the provider's disposer, for a
 * caller that removes it sooner.
 */
export function registerKeyedSearch<Options extends KeyedSearchOptions>(ctx: Context, spec: Omit<KeyedSearchSpec<Options>, 'resolveKey' | 'lifetime'>): () => void {
  const unloaded = (): WebError => new WebError(`${spec.name} search aborted: the provider was unloaded`, 'WEB_ABORTED')
  const lifetime = scopeLifetime(ctx, unloaded)
  // undici loads with the first search: most runs never search, and it is most of undici's cost at load.
  const agent = lazyAgent(ctx, async () => new (await import('undici')).Agent(), unloaded)
  const dispatcher = spec.dispatcher ?? { request: async (options: Dispatcher.RequestOptions) => (await agent()).request(options) }
  return ctx.web.registerSearchProvider(keyedSearchProvider({ ...spec, dispatcher, resolveKey: credentialResolver(ctx), lifetime }))
}

/** `resolveKey` for a plugin: ctx.credentials when it is mounted, else the host's environment (hostEnv). */
export function credentialResolver(ctx: Context): (name: string, cwd?: string) => Promise<string | undefined> {
  return async (name, cwd) => {
    const credentials = ctx.get('credentials')
    if (credentials) return (await credentials.resolve(name, cwd === undefined ? {} : { cwd }))?.value
    return hostEnv(ctx)[name] || undefined
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

async function readBounded(response: KeyedResponse, maxBytes: number, name: string): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let length = 0
  try {
    for await (const chunk of response.body) {
      length += chunk.byteLength
      // Leaving the loop early cancels the stream, which closes the connection.
      if (length > maxBytes) throw new WebError(`${name} returned more than ${maxBytes} bytes (maxResponseBytes)`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
      chunks.push(chunk)
    }
  } finally {
    response.discard()
  }
  return Buffer.concat(chunks).toString('utf8')
}

function socketReason(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause
  return cause instanceof Error ? cause.message : errorMessage(error)
}

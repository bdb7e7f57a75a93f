import type { Context } from 'cordis'
import type {} from './service.ts'
import { currentSession, deadline, errorMessage, raceAbort, type CapabilityStatus, type ProbeContext } from 'dsh-core'
import { WebError } from './errors.ts'
import type { ProviderFault } from './fault.ts'
import { providerText } from './provider-text.ts'
import { redactResult } from './sources.ts'
import type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './types.ts'

// `dsh-web/keyed-search`: the part every search provider for an HTTP JSON API with an API key
// shares, so a provider package holds only its API's shape (request, error answers, mapping).
// The key is resolved at every search and never cached; the request is recorded, without the key,
// before it is sent; redirects are refused so the key never leaves the configured endpoint; the
// provider has its own deadline; every failure is a coded WebError, with a `fault` when it is the
// provider's (so a failover list moves on), and `partial` when a success answer broke off.

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
  /** A credential by name, per call, never cached; `cwd` picks the project `.env`. */
  readonly resolveKey: (name: string, cwd?: string) => Promise<string | undefined>
  readonly request: (search: WebSearchRequest, options: Options, key: string) => KeyedRequest
  /** Reads a non-2xx answer (its JSON body, when it has one). */
  readonly refusal: (status: number, headers: Headers, body: unknown) => Refusal
  /** Maps a 2xx JSON body; throws WebError for a shape it cannot read. */
  readonly map: (body: unknown, search: WebSearchRequest) => WebSearchResult
  /** Where the request record goes; by default the calling session's log (nothing outside a session). */
  readonly record?: (event: string, data: unknown) => void
  /** Aborts whatever is in flight when the plugin unloads. */
  readonly lifetime?: AbortSignal
}

/** The provider object for `ctx.web.registerSearchProvider`. */
export function keyedSearchProvider<Options extends KeyedSearchOptions>(spec: KeyedSearchSpec<Options>): WebSearchProvider {
  const { id, name } = spec
  const fail = (message: string, code: string, options?: { cause?: unknown; fault?: ProviderFault; partial?: boolean }) => new WebError(message, code, options)

  async function key(options: Options, signal: AbortSignal, cwd?: string): Promise<string | undefined> {
    if (options.apiKey) return options.apiKey
    try {
      return await raceAbort(spec.resolveKey(options.apiKeyEnv, cwd), signal)
    } catch (error) {
      if (signal.aborted) throw error
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

  async function answer(response: Response, options: Options, secret: string, search: WebSearchRequest): Promise<WebSearchResult> {
    const { status } = response
    if (status >= 300 && status < 400) {
      await response.body?.cancel()
      throw fail(`${name} search was redirected (HTTP ${status}); redirects are not followed, so the key stays with the configured endpoint`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
    }
    const text = await readBounded(response, options.maxResponseBytes, name)
    const json = parseJson(text)
    if (status < 200 || status >= 300) {
      const refusal = spec.refusal(status, response.headers, json)
      // The body is the API's text: it may echo the key, span lines, or run long.
      const detail = refusal.detail ? `: ${providerText(refusal.detail, [secret])}` : ''
      throw fail(`${name} API error (HTTP ${status})${detail}`, 'WEB_PROVIDER_ERROR', refusal.fault ? { fault: refusal.fault } : undefined)
    }
    if (json === undefined) throw fail(`${name} returned a body that is not JSON (content-type ${response.headers.get('content-type') ?? 'none'})`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
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

  function status(): CapabilityStatus {
    const options = spec.options()
    const endpoint = spec.endpoint(options)
    if (options.apiKey) return { state: 'ready', detail: `literal apiKey; ${endpoint}` }
    return { state: 'idle', detail: `key ${options.apiKeyEnv} is looked up at each search; ${endpoint}` }
  }

  return {
    id,
    // The config was validated at load; a missing key shows at search time and in the probe.
    available: () => true,
    status,

    /** Looks the key up the way a search would (with the probed workspace's `.env`); never calls the API. */
    async probe(context: ProbeContext): Promise<CapabilityStatus> {
      const options = spec.options()
      if (options.apiKey) return status()
      const found = await key(options, context.signal, context.cwd)
      if (!found) return { state: 'no_credential', detail: missingKeyMessage(name, options.apiKeyEnv, spec.row) }
      return { state: 'ready', detail: `key ${options.apiKeyEnv} found; ${spec.endpoint(options)}` }
    },

    async search(search, signal) {
      const options = spec.options()
      if (signal?.aborted) throw fail(`${name} search aborted`, 'WEB_ABORTED', { cause: signal.reason })
      const budget = deadline(spec.lifetime ? AbortSignal.any([spec.lifetime, ...(signal ? [signal] : [])]) : signal, options.timeoutMs, 'WEB_SEARCH_TIMEOUT')
      let secret = ''
      // Set once a success answer is arriving: a failure after that is `partial`, never failed over.
      let underWay = false
      try {
        const found = await key(options, budget.signal)
        if (!found) throw fail(missingKeyMessage(name, options.apiKeyEnv, spec.row), 'WEB_PROVIDER_CREDENTIAL_MISSING')
        secret = found
        const request = spec.request(search, options, found)
        record(request.record)
        if (budget.signal.aborted) throw budget.signal.reason
        const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body ?? null, redirect: 'manual', signal: budget.signal })
        underWay = response.status >= 200 && response.status < 300
        return await answer(response, options, secret, search)
      } catch (error) {
        const partial = underWay && !(error instanceof WebError)
        if (budget.expired) throw fail(`${name} search timed out after ${options.timeoutMs} ms${partial ? ' while its answer was arriving' : ''}`, 'WEB_SEARCH_TIMEOUT', { cause: error, partial })
        if (signal?.aborted) throw fail(`${name} search aborted`, 'WEB_ABORTED', { cause: signal.reason })
        if (spec.lifetime?.aborted) throw fail(`${name} search aborted: the provider was unloaded`, 'WEB_ABORTED', { cause: error })
        if (error instanceof WebError) throw error
        // fetch() hides the socket error in `cause` (`fetch failed` ← `connect ECONNREFUSED …`).
        const reason = providerText(socketReason(error), [secret])
        if (partial) throw fail(`${name} answer broke off before its end: ${reason}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' }, partial })
        throw fail(`${name} request failed: ${reason}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' } })
      } finally {
        budget.dispose()
      }
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
 * environment), and searches still in flight end with WEB_ABORTED when the plugin unloads (the seam
 * removes the provider itself).
 */
export function registerKeyedSearch<Options extends KeyedSearchOptions>(ctx: Context, spec: Omit<KeyedSearchSpec<Options>, 'resolveKey' | 'lifetime'>): void {
  const lifetime = new AbortController()
  ctx.effect(() => () => lifetime.abort())
  ctx.web.registerSearchProvider(keyedSearchProvider({ ...spec, resolveKey: credentialResolver(ctx), lifetime: lifetime.signal }))
}

/** `resolveKey` for a plugin: ctx.credentials when it is mounted, else the process environment. */
export function credentialResolver(ctx: Context): (name: string, cwd?: string) => Promise<string | undefined> {
  return async (name, cwd) => {
    const credentials = ctx.get('credentials')
    if (credentials) return (await credentials.resolve(name, cwd === undefined ? {} : { cwd }))?.value
    return process.env[name] || undefined
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

async function readBounded(response: Response, maxBytes: number, name: string): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let length = 0
  for await (const chunk of response.body) {
    length += chunk.byteLength
    // Leaving the loop early cancels the stream, which closes the connection.
    if (length > maxBytes) throw new WebError(`${name} returned more than ${maxBytes} bytes (maxResponseBytes)`, 'WEB_PROVIDER_ERROR', { fault: { kind: 'failing' } })
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function socketReason(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause
  return cause instanceof Error ? cause.message : errorMessage(error)
}

import type { Readable } from 'node:stream'
import { closedBeforeAnswer, errorMessage, lazyAgent, Lifetime, type CapabilityStatus, type LazyAgent } from 'dsh-core'
import { WebError, type WebFetchProvider, type WebFetchRequest, type WebFetchResult } from 'dsh-web'
import type { Agent, Dispatcher } from 'undici'
import { discard, IncompleteBody, readBody } from './body.ts'
import { UndiciSignal } from './undici-signal.ts'
import type { FetchHttpConfig } from './config.ts'
import { guardedConnector, type BaseConnectorOptions, type Connector } from './guard/connector.ts'
import { NetworkGuard, type Resolver } from './guard/guard.ts'
import { DomainRules } from './guard/domains.ts'
import { checkPort } from './guard/ports.ts'
import { checkedUrl, isFollowable, locationText, REDIRECT_STATUSES, redirectUrl } from './url.ts'

const ACCEPT = 'text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.8,application/pdf;q=0.8'

export interface HttpFetchProviderOptions {
  readonly config: FetchHttpConfig
  /** DNS for the guard; the system resolver by default. */
  readonly resolver?: Resolver
  /** TLS and socket options for undici's connector (a test CA, say). Never from the model. */
  readonly connect?: BaseConnectorOptions
  /** Replaces undici's connector under the guard; only for tests of the peer check. */
  readonly baseConnector?: Connector
}

/**
 * The `http` fetch provider: GET over undici with the network guard on every connection, same-origin
 * redirects re-checked hop by hop, and a bounded, decoded body. No cookies, no proxy, no ambient
 * credentials: the only headers are user-agent, accept and accept-encoding.
 */
export class HttpFetchProvider implements WebFetchProvider {
  readonly id = 'http'
  readonly guard: NetworkGuard
  private readonly config: FetchHttpConfig
  private readonly connect: HttpFetchProviderOptions['connect']
  private readonly baseConnector: Connector | undefined
  /**
   * Our own Agent, made on the first fetch (undici is most of this package's load time, and many runs
   * never fetch): environment proxies (HTTP_PROXY, …) never apply, so none can route around the guard.
   */
  private readonly connection: LazyAgent<Agent>
  private readonly headers: Readonly<Record<string, string>>
  private readonly allowedPorts: ReadonlySet<number>
  private readonly domains: DomainRules
  /** The provider's own timeout on every fetch, whatever the caller's bound. */
  private readonly backstop: { readonly timeoutMs: number; readonly code: string }

  constructor(options: HttpFetchProviderOptions) {
    this.config = options.config
    this.headers = { 'user-agent': options.config.userAgent, accept: ACCEPT, 'accept-encoding': 'gzip, deflate, br' }
    this.guard = new NetworkGuard(options.config, options.resolver)
    this.allowedPorts = new Set(options.config.allowedPorts)
    this.domains = new DomainRules(options.config.allowedDomains, options.config.deniedDomains)
    this.backstop = { timeoutMs: options.config.timeoutMs, code: 'WEB_FETCH_TIMEOUT' }
    this.connect = options.connect
    this.baseConnector = options.baseConnector
    this.connection = lazyAgent(undefined, async () => {
      const { Agent, buildConnector } = await import('undici')
      return new Agent({ connect: guardedConnector(buildConnector, this.guard, this.connect, this.baseConnector), maxHeaderSize: this.config.maxHeaderBytes })
    }, unloaded)
  }

  available(): boolean {
    return true
  }

  status(): CapabilityStatus {
    const { allowPrivateNetwork, allowedCidrs, allowedDomains, deniedDomains, allowedPorts } = this.config
    const guard = allowPrivateNetwork
      ? 'network guard: private networks allowed (metadata still refused)'
      : allowedCidrs.length
        ? `network guard on; also allowed: ${allowedCidrs.join(', ')}`
        : 'network guard on: public addresses only'
    const rules = [
      allowedDomains.length ? `only ${allowedDomains.join(', ')}` : '',
      deniedDomains.length ? `never ${deniedDomains.join(', ')}` : '',
      allowedPorts.length ? `bad ports opened: ${allowedPorts.join(', ')}` : '',
    ].filter(Boolean)
    return { state: 'ready', detail: [guard, ...rules].join('; ') }
  }

  async fetch(request: WebFetchRequest, signal?: AbortSignal): Promise<WebFetchResult> {
    if (signal?.aborted) throw new WebError('web fetch aborted', 'WEB_ABORTED', { cause: signal.reason })
    return this.run(request, Lifetime.following(signal, this.backstop), signal)
  }

  /** The fetch as a child of the caller's lifetime (a tool call's): no `AbortSignal` is made for it. */
  async fetchWithin(request: WebFetchRequest, lifetime: Lifetime): Promise<WebFetchResult> {
    if (lifetime.aborted) throw new WebError('web fetch aborted', 'WEB_ABORTED', { cause: lifetime.reason })
    return this.run(request, lifetime.child(this.backstop), lifetime)
  }

  /** All hops and the body on one lifetime, `budget`: the caller's bound or the provider's backstop, whichever ends first. */
  private async run(request: WebFetchRequest, budget: Lifetime, caller: CallerBound | undefined): Promise<WebFetchResult> {
    const undiciSignal = new UndiciSignal(budget)
    try {
      let url = checkedUrl(request.url, this.config.maxUrlLength)
      for (let followed = 0; ; followed++) {
        const response = await this.dispatch(url, budget, undiciSignal)
        if (!REDIRECT_STATUSES.has(response.statusCode)) return await this.result(url, response, budget, caller)
        try {
          url = this.redirectTarget(url, response, followed)
        } catch (error) {
          discard(response.body)
          throw error
        }
        // A short redirect body is drained so the connection can serve the next hop.
        await response.body.dump({ limit: 65_536, signal: budget.signal })
      }
    } catch (error) {
      // The plugin unloaded under the fetch (its Agent destroyed or refused): the fetch was aborted, not failing.
      throw this.connection.closed ? unloaded(error) : translate(error, budget.expired, caller, this.config)
    } finally {
      budget.dispose()
    }
  }

  /**
   * One GET. Every hop is resolved and checked first, so a refused name or address never reaches
   * a socket, and a new connection goes to exactly the answers that were checked. A GET lost on a
   * kept connection that the server closed as it was reused is sent once more, on a new connection,
   * as browsers do: a server closes idle connections on its own clock, and a GET only reads.
   */
  private async dispatch(url: URL, budget: Lifetime, signal: UndiciSignal): Promise<Dispatcher.ResponseData> {
    this.domains.check(url)
    checkPort(url, this.allowedPorts)
    // A literal or localhost needs no DNS, so nothing to wait for.
    const release = this.guard.pinNow(url.hostname) ?? (await this.guard.pin(url.hostname, budget))
    try {
      const agent = await this.connection()
      const request: Dispatcher.RequestOptions = { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers: this.headers, signal }
      try {
        return await agent.request(request)
      } catch (error) {
        if (budget.aborted || !closedBeforeAnswer(error)) throw error
        return await agent.request(request)
      }
    } finally {
      release()
    }
  }

  /** Closes every pooled connection; a fetch after it is refused. */
  close(): Promise<void> {
    return this.connection.close()
  }

  private redirectTarget(from: URL, response: Dispatcher.ResponseData, followed: number): URL {
    const max = this.config.maxRedirects
    // The budget is checked first: an over-budget hop is "too many", wherever it points.
    if (followed >= max) throw new WebError(`exceeded the maximum of ${max} redirects`, 'WEB_REDIRECT_BLOCKED')
    const location = header(response.headers, 'location')
    if (!location) throw new WebError(`a redirect response (HTTP ${response.statusCode}) had no Location`, 'WEB_PROVIDER_ERROR')
    let target: URL
    try {
      target = new URL(locationText(location), from)
    } catch (error) {
      throw new WebError(`a redirect pointed to an invalid Location: ${location}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
    const next = redirectUrl(target, this.config.maxUrlLength)
    if (!isFollowable(from, next)) {
      throw new WebError(`redirect to another origin (${next.origin}) was not followed; fetch ${next.href} directly if it is wanted`, 'WEB_REDIRECT_BLOCKED')
    }
    return next
  }

  private async result(url: URL, response: Dispatcher.ResponseData, budget: Lifetime, caller: CallerBound | undefined): Promise<WebFetchResult> {
    let body
    try {
      body = await readBody(
        response.body as Readable,
        { contentType: header(response.headers, 'content-type'), contentEncoding: header(response.headers, 'content-encoding'), contentLength: header(response.headers, 'content-length') },
        { maxBytes: this.config.maxResponseBytes, maxChars: this.config.maxBodyChars, maxPdfBytes: this.config.maxPdfBytes, maxCodings: this.config.maxContentCodings },
      )
    } catch (error) {
      if (!(error instanceof IncompleteBody)) throw error
      // The caller's abort (or the plugin unloading) ends the fetch with nothing: its answer is no longer wanted.
      if (caller?.aborted || this.connection.closed) throw error.cause
      // Our deadline, or a connection cut mid-body: what arrived is returned, said to be incomplete.
      const incomplete = budget.expired
        ? { code: 'WEB_FETCH_TIMEOUT' as const, reason: `the fetch timed out (timeoutMs ${this.config.timeoutMs} ms) after ${error.bytes} bytes of the body` }
        : { code: 'WEB_FETCH_CUT' as const, reason: `the body broke off after ${error.bytes} bytes, before its end (${describe(error.cause)})` }
      return { url: url.href, statusCode: response.statusCode, body: { kind: error.body.kind, content: error.body.content }, truncated: true, incomplete }
    }
    if (body.kind === 'pdf') return { url: url.href, statusCode: response.statusCode, body: { kind: 'pdf', bytes: body.bytes }, truncated: false }
    return { url: url.href, statusCode: response.statusCode, body: { kind: body.kind, content: body.content }, truncated: body.truncated }
  }
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** The caller's signal or lifetime, as far as the error translation reads it. */
interface CallerBound {
  readonly aborted: boolean
  readonly reason: unknown
}

/** Driven by the bounds, not by the error's shape: our own deadline, then the caller's abort. */
/** A fetch the provider's unloading ended. */
function unloaded(cause?: unknown): WebError {
  return new WebError('web fetch aborted: the provider was unloaded', 'WEB_ABORTED', cause === undefined ? undefined : { cause })
}

function translate(error: unknown, expired: boolean, caller: CallerBound | undefined, config: FetchHttpConfig): WebError {
  if (expired) return new WebError('web fetch timed out', 'WEB_FETCH_TIMEOUT', { cause: error })
  if (caller?.aborted) return new WebError('web fetch aborted', 'WEB_ABORTED', { cause: caller.reason })
  if (error instanceof WebError) return error
  // undici says "Headers Overflow Error": the server's, and a limit the operator can raise.
  if ((error as { code?: unknown })?.code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new WebError(`web fetch failed: the server's response headers are larger than ${config.maxHeaderBytes} bytes, the maxHeaderBytes limit (UND_ERR_HEADERS_OVERFLOW)`, 'WEB_PROVIDER_ERROR', { cause: error })
  }
  return new WebError(`web fetch failed: ${describe(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  const message = errorMessage(error)
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message
}


import { isIP } from 'node:net'
import { MAX_TIMER_DELAY_MS } from 'dsh-core'

/** `dsh serve`'s own options, for node's parseArgs. */
export const SERVE_OPTIONS = {
  'max-message-bytes': { type: 'string' },
  'max-concurrent-calls': { type: 'string' },
  'max-output-bytes': { type: 'string' },
  'max-read-bytes': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'answer-timeout-ms': { type: 'string' },
  http: { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  auth: { type: 'string' },
  'token-env': { type: 'string' },
  issuer: { type: 'string' },
  audience: { type: 'string' },
  scope: { type: 'string', multiple: true },
  'drain-timeout-ms': { type: 'string' },
  'max-sessions': { type: 'string' },
  'keep-alive-ms': { type: 'string' },
} as const

export type ServeFlagValues = { readonly [Name in keyof typeof SERVE_OPTIONS]?: (typeof SERVE_OPTIONS)[Name] extends { multiple: true } ? string[] : string }

export const SERVE_USAGE = `  serve                       an MCP server exposing the tools (and skills as prompts and SEP-2640 skills): on stdio until stdin closes, or over HTTP
    [--max-message-bytes <n>] refuse (answer with an error, keep serving) any incoming message larger than this (default 33554432, 32 MiB)
    [--max-concurrent-calls <n>]  tools/call requests running at once; one more is answered with an error (default 16)
    [--max-output-bytes <n>]  stdio: answers the client has not read yet; past this it has stopped reading and is disconnected (default 67108864, 64 MiB)
    [--max-read-bytes <n>]    a resources/read of a skill file whose content as sent (text as a JSON string, binary as base64) is larger is refused, SERVE_READ_TOO_LARGE (default 8388608, 8 MiB)
    [--request-timeout-ms <n>]  a tools/call still running after this is aborted and answered SERVE_REQUEST_TIMEOUT (default 600000, 10 minutes)
    [--answer-timeout-ms <n>]  how long a bridged server's question relayed to the client waits for its answer; then it is cancelled (default 600000, 10 minutes)
    [--http [<host>:]<port>]  serve Streamable HTTP at http://<host>:<port>/mcp instead (host default 127.0.0.1; port 0 picks a free one; the URL is printed on stderr)
                              2026-07-28 clients stateless, 2025-11-25 clients in sessions; GET /healthz answers 200 when every configured capability is ready
    [--allowed-origin <origin>]...  a browser Origin (besides localhost's) allowed to call; any other is refused with 403
    [--allowed-host <name>]...      a Host header name (besides the loopback names) a loopback-bound server answers, e.g. a proxy's public name
    [--auth none|bearer|oauth]      required (not none) to bind anything but loopback (default none)
    [--token-env <NAME>]      --auth bearer: the environment variable holding the accepted token(s), separated by commas or whitespace
    [--issuer <url>]          --auth oauth: the authorization server whose JWT access tokens (RFC 9068) are accepted, checked against its JWKS
    [--audience <uri>]        --auth oauth: the audience tokens must carry (default: this server's URL, .../mcp)
    [--scope <scope>]...      --auth oauth: scopes every request's token must carry (else 403 insufficient_scope)
    [--drain-timeout-ms <n>]  on SIGTERM, how long running calls may finish before they are aborted (default 10000)
    [--max-sessions <n>]      2025-11-25 sessions kept at once; one more closes the one used longest ago (default 1000)
    [--keep-alive-ms <n>]     how long an idle client connection is kept open (default 65000): longer than clients and proxies keep theirs, so they close it first`

/** `dsh serve`'s bounds, each a flag with a documented default (shared by stdio and HTTP). */
export interface ServeLimits {
  /** An incoming message larger than this is refused (answered with an error when it has an id, and logged). */
  readonly maxMessageBytes: number
  /** `tools/call` requests running at once; one more is answered at once with an error saying so. */
  readonly maxConcurrentCalls: number
  /** Bytes written to stdout and not yet read by the client; past it the client is taken to have stopped reading and the connection is closed. */
  readonly maxOutputBytes: number
  /**
   * The largest content one `resources/read` answers, as sent (a text's JSON string, a binary file's
   * base64); a larger one is refused with `SERVE_READ_TOO_LARGE`.
   */
  readonly maxReadBytes: number
  /** How long one `tools/call` may run before it is aborted and answered `SERVE_REQUEST_TIMEOUT`. */
  readonly requestTimeoutMs: number
  /** How long a question relayed to the client waits for its answer before it is cancelled. */
  readonly answerTimeoutMs: number
}

/** How an HTTP request proves it may call: nothing (loopback only), a shared token, or an OAuth access token. */
export type ServeAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly tokenEnv: string; readonly tokens: readonly string[] }
  | { readonly kind: 'oauth'; readonly issuer: string; readonly audience: string | undefined; readonly scopes: readonly string[] }

export interface HttpSettings {
  readonly host: string
  /** 0: the system picks a free port. */
  readonly port: number
  /** Hostnames of browser origins allowed besides localhost's. */
  readonly allowedOrigins: readonly string[]
  /** Host header names a loopback-bound server answers besides the loopback names. */
  readonly allowedHosts: readonly string[]
  readonly auth: ServeAuth
  readonly drainTimeoutMs: number
  /**
   * How long an idle connection is kept (sent as the `Keep-Alive: timeout=` hint). Above the idle
   * limits of clients (undici 4 s, following the hint) and proxies (60 s is common), so the client
   * closes first: a server that closes an idle connection as a request comes on it loses that request.
   */
  readonly keepAliveMs: number
  /** 2025-11-25 sessions kept at once; one more closes the one used longest ago. */
  readonly maxSessions: number
}

export interface ServeSettings extends ServeLimits {
  /** Absent: stdio. */
  readonly http: HttpSettings | undefined
}

/** The largest incoming message `dsh serve` reads by default: far above any real tool call, and a bound on memory. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024
/** `tools/call` requests `dsh serve` runs at once by default: more than a client runs in parallel, few enough to bound the work one client can start. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 16
/** Unread answers `dsh serve` keeps by default before it takes the client to have stopped reading: two of the largest messages. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024
/**
 * The largest `resources/read` content `dsh serve` sends by default: one answer is one JSON-RPC
 * message, and the MCP SDKs' stdio clients (v1 and v2) close the connection on a message over
 * 10 MiB (their ReadBuffer's limit); 8 MiB leaves the envelope room. It bounds the main thread's
 * time on one answer too (decoding, base64, serialising: 130–530 ms for 16 MiB, bench/RESULTS.md).
 */
export const DEFAULT_MAX_READ_BYTES = 8 * 1024 * 1024
/** A call's deadline under `dsh serve` by default: longer than any tool's own timeout, short enough that a wedged call frees its slot. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000
/** How long a relayed question waits for the client's answer by default: the SDK's own bound for a round of user input. */
export const DEFAULT_ANSWER_TIMEOUT_MS = 600_000
/** How long `dsh serve --http` lets running calls finish on SIGTERM by default: under the usual 30 s an orchestrator waits before SIGKILL. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000
/** The idle limit of `dsh serve --http`'s connections by default: above the 60 s idle limit of common proxies and load balancers. */
export const DEFAULT_KEEP_ALIVE_MS = 65_000

/** 2025-11-25 sessions `dsh serve --http` keeps by default: a team's clients many times over, a bound on memory. */
export const DEFAULT_MAX_SESSIONS = 1000

export class ServeUsageError extends Error {}

/** The serve flags given on the command line, by their spelling (for "… belongs to the serve command"). */
export function serveFlagsGiven(values: ServeFlagValues): string[] {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => `--${name}`)
}

export function serveSettings(values: ServeFlagValues, env: NodeJS.ProcessEnv): ServeSettings {
  const limits: ServeLimits = {
    maxMessageBytes: positiveFlag('--max-message-bytes', values['max-message-bytes'], DEFAULT_MAX_MESSAGE_BYTES, ' of bytes'),
    maxConcurrentCalls: positiveFlag('--max-concurrent-calls', values['max-concurrent-calls'], DEFAULT_MAX_CONCURRENT_CALLS, ''),
    maxOutputBytes: positiveFlag('--max-output-bytes', values['max-output-bytes'], DEFAULT_MAX_OUTPUT_BYTES, ' of bytes'),
    maxReadBytes: positiveFlag('--max-read-bytes', values['max-read-bytes'], DEFAULT_MAX_READ_BYTES, ' of bytes'),
    requestTimeoutMs: timerFlag('--request-timeout-ms', values['request-timeout-ms'], DEFAULT_REQUEST_TIMEOUT_MS),
    answerTimeoutMs: timerFlag('--answer-timeout-ms', values['answer-timeout-ms'], DEFAULT_ANSWER_TIMEOUT_MS),
  }
  if (values.http === undefined) {
    const httpOnly = (['allowed-origin', 'allowed-host', 'auth', 'token-env', 'issuer', 'audience', 'scope', 'drain-timeout-ms', 'max-sessions', 'keep-alive-ms'] as const).filter((name) => values[name] !== undefined)
    if (httpOnly.length) throw new ServeUsageError(`--${httpOnly[0]} belongs to dsh serve --http`)
    return { ...limits, http: undefined }
  }
  const { host, port } = listenAddress(values.http)
  const auth = authOf(values, env)
  if (auth.kind === 'none' && !isLoopback(host)) {
    throw new ServeUsageError(`--http ${values.http} binds ${host}, which is not loopback: anyone who can reach it could call the tools, so it needs --auth bearer or --auth oauth`)
  }
  return {
    ...limits,
    http: {
      host,
      port,
      allowedOrigins: (values['allowed-origin'] ?? []).map(originHostname),
      allowedHosts: (values['allowed-host'] ?? []).map(hostName),
      auth,
      drainTimeoutMs: timerFlag('--drain-timeout-ms', values['drain-timeout-ms'], DEFAULT_DRAIN_TIMEOUT_MS),
      maxSessions: positiveFlag('--max-sessions', values['max-sessions'], DEFAULT_MAX_SESSIONS, ''),
      keepAliveMs: timerFlag('--keep-alive-ms', values['keep-alive-ms'], DEFAULT_KEEP_ALIVE_MS),
    },
  }
}

/** `8080`, `0`, `0.0.0.0:8080`, `localhost:0`, `[::1]:8080`. */
export function listenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value)
  const port = Number(match?.[2])
  if (!match || port > 65535) throw new ServeUsageError(`--http takes [<host>:]<port> with a port from 0 to 65535 (got "${value}")`)
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1'
  if (host.includes(':') && isIP(host) !== 6) throw new ServeUsageError(`--http: "${match[1]}" is not an IPv6 address`)
  return { host, port }
}

/** 127.0.0.0/8, ::1 (and its IPv4-mapped form) and `localhost`: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase()
  if (name === 'localhost' || name === '::1' || name === '0:0:0:0:0:0:0:1') return true
  const v4 = name.startsWith('::ffff:') ? name.slice('::ffff:'.length) : name
  return isIP(v4) === 4 && v4.startsWith('127.')
}

function authOf(values: ServeFlagValues, env: NodeJS.ProcessEnv): ServeAuth {
  const kind = values.auth ?? 'none'
  const unused = (names: readonly ('token-env' | 'issuer' | 'audience' | 'scope')[]) => {
    const given = names.find((name) => values[name] !== undefined)
    if (given) throw new ServeUsageError(`--${given} does not apply to --auth ${kind}`)
  }
  switch (kind) {
    case 'none':
      unused(['token-env', 'issuer', 'audience', 'scope'])
      return { kind }
    case 'bearer': {
      unused(['issuer', 'audience', 'scope'])
      const tokenEnv = values['token-env']
      if (!tokenEnv) throw new ServeUsageError('--auth bearer needs --token-env <NAME>, the environment variable holding the accepted token(s)')
      const tokens = (env[tokenEnv] ?? '').split(/[\s,]+/).filter(Boolean)
      if (!tokens.length) throw new ServeUsageError(`--token-env ${tokenEnv}: the environment variable ${tokenEnv} is not set or holds no token`)
      return { kind, tokenEnv, tokens }
    }
    case 'oauth': {
      unused(['token-env'])
      const issuer = values.issuer
      if (!issuer) throw new ServeUsageError('--auth oauth needs --issuer <url>, the authorization server whose tokens are accepted')
      const url = absoluteUrl('--issuer', issuer)
      if (url.protocol === 'http:' && !isLoopback(url.hostname.replace(/^\[(.*)\]$/, '$1'))) throw new ServeUsageError(`--issuer ${issuer}: an issuer's keys are read over https (plain http only on loopback)`)
      if (values.audience !== undefined && !values.audience) throw new ServeUsageError('--audience must not be empty')
      const scopes = (values.scope ?? []).flatMap((scope) => scope.split(/\s+/)).filter(Boolean)
      return { kind, issuer, audience: values.audience, scopes }
    }
    default:
      throw new ServeUsageError(`--auth must be none, bearer or oauth (got "${kind}")`)
  }
}

function absoluteUrl(flag: string, value: string): URL {
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' || url.protocol === 'http:') return url
  } catch {
    // worded below
  }
  throw new ServeUsageError(`${flag} must be an http(s) URL (got "${value}")`)
}

/** `https://app.example.com`, `app.example.com` → `app.example.com` (origins are compared by hostname, as the SDK's check does). */
function originHostname(value: string): string {
  if (value.includes('://')) {
    try {
      return new URL(value).hostname
    } catch {
      throw new ServeUsageError(`--allowed-origin: "${value}" is not an origin`)
    }
  }
  return hostName(value)
}

function hostName(value: string): string {
  const name = value.trim().toLowerCase()
  if (!name || /[\s/]/.test(name)) throw new ServeUsageError(`"${value}" is not a host name`)
  return isIP(name) === 6 ? `[${name}]` : name
}

function positiveFlag(flag: string, value: string | undefined, fallback: number, unit: string): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number <= 0) throw new ServeUsageError(`${flag} must be a positive whole number${unit} (got "${value}")`)
  return number
}

function timerFlag(flag: string, value: string | undefined, fallback: number): number {
  const ms = positiveFlag(flag, value, fallback, ' of milliseconds')
  if (ms > MAX_TIMER_DELAY_MS) throw new ServeUsageError(`${flag} must be at most ${MAX_TIMER_DELAY_MS} (got "${value}")`)
  return ms
}

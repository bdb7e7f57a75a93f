import { assertNever, envFromConfig, errorMessage, type CredentialService, type SubprocessService } from 'dsh-core'
import type { McpConfig, RemoteServerConfig, StdioServerConfig } from './config.ts'
import { McpError } from './errors.ts'
import { openHttpConnections } from './http-connections.ts'
import { HttpTransport } from './http-transport.ts'
import type { OAuthSession } from './oauth/session.ts'
import { SseTransport } from './sse-transport.ts'
import { StdioTransport } from './stdio-transport.ts'

export type BridgeTransport = StdioTransport | HttpTransport | SseTransport

export interface TransportServices {
  readonly subprocess: Pick<SubprocessService, 'spawn' | 'resolveExecutable'>
  /** Needed only by HTTP servers with `bearerTokenEnvVar` or `envHeaders`. */
  readonly credentials: Pick<CredentialService, 'resolve'> | undefined
  /** The row's OAuth (remote rows that may use it; see oauth/session.ts). */
  readonly auth?: OAuthSession | undefined
}

export interface TransportRequest {
  readonly services: TransportServices
  /** The directory a stdio server runs in (absolute): its `cwd` resolved, else the host's workspace. */
  readonly cwd: string
  /** Aborted when the row is unloaded: a spawn is cancelled (its group terminated). */
  readonly signal: AbortSignal
  /** HTTP only: the event stream ended, for the owner to check with a ping. */
  readonly onSuspect: (reason: Error) => void
}

/**
 * A fresh transport for one connection attempt, by the row's `transport`. Lookups (executable,
 * credentials, passed variables) happen again each time. The one place a transport kind is chosen:
 * a new kind is a config variant and a case here.
 */
export async function createTransport(config: McpConfig, request: TransportRequest): Promise<BridgeTransport> {
  switch (config.transport) {
    case 'stdio':
      return stdioTransport(config, request)
    case 'streamable-http':
    case 'sse': {
      const auth = request.services.auth
      const options = {
        url: new URL(config.url),
        headers: await httpHeaders(config, request.services),
        maxMessageBytes: config.maxMessageBytes,
        connections: await openHttpConnections(config.keepAliveMs),
        onSuspect: request.onSuspect,
        auth,
        authProvider: await auth?.transportProvider(),
      }
      return config.transport === 'sse' ? new SseTransport(options) : new HttpTransport(options, config.endSessionWaitMs)
    }
    default:
      return assertNever(config, 'MCP transport')
  }
}

async function stdioTransport(config: StdioServerConfig, { services, cwd, signal }: TransportRequest): Promise<StdioTransport> {
  const env = { ...passedVariables(config.envVars), ...envFromConfig(config.env) }
  let executable: string
  try {
    executable = await services.subprocess.resolveExecutable(config.command, { env, signal })
  } catch (error) {
    throw new McpError(`command: ${errorMessage(error)}`, 'MCP_CONNECT_FAILED', { cause: error })
  }
  return new StdioTransport({
    subprocess: services.subprocess,
    spawn: { argv: [executable, ...config.args], cwd, env, signal },
    shutdownGraceMs: config.shutdownGraceMs,
    maxMessageBytes: config.maxMessageBytes,
  })
}

/** `envVars`: the named parent variables that are set, as they are (explicit `env` entries win). */
function passedVariables(names: readonly string[]): Record<string, string> {
  const passed: Record<string, string> = {}
  for (const name of names) {
    const value = process.env[name]
    if (value !== undefined) passed[name] = value
  }
  return passed
}

/** Literal headers, then `envHeaders` and the bearer token read through ctx.credentials (values are never logged). */
async function httpHeaders(config: RemoteServerConfig, services: TransportServices): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...config.headers }
  const secret = async (variable: string, field: string): Promise<string> => {
    if (!services.credentials) throw new McpError(`${field}: reading ${variable} needs the dsh-core/credentials row`, 'MCP_CREDENTIAL_MISSING')
    const found = await services.credentials.resolve(variable)
    if (!found) throw new McpError(`${field}: the variable ${variable} is not set (environment, project .env or user .env)`, 'MCP_CREDENTIAL_MISSING')
    return found.value
  }
  for (const [header, variable] of Object.entries(config.envHeaders)) headers[header] = await secret(variable, `envHeaders.${header}`)
  if (config.bearerTokenEnvVar) headers.Authorization = `Bearer ${await secret(config.bearerTokenEnvVar, 'bearerTokenEnvVar')}`
  return headers
}

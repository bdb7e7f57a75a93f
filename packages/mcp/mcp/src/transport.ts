import { resolve } from 'node:path'
import { envFromConfig, errorMessage, type CredentialService, type SubprocessService } from 'dsh-core'
import type { HttpServerConfig, McpConfig, StdioServerConfig } from './config.ts'
import { McpError } from './errors.ts'
import { HttpTransport } from './http-transport.ts'
import { StdioTransport } from './stdio-transport.ts'

export type BridgeTransport = StdioTransport | HttpTransport

export interface TransportServices {
  readonly subprocess: Pick<SubprocessService, 'spawn' | 'resolveExecutable'>
  /** Needed only by HTTP servers with `bearerTokenEnvVar` or `envHeaders`. */
  readonly credentials: Pick<CredentialService, 'resolve'> | undefined
}

export interface TransportRequest {
  readonly services: TransportServices
  /** Aborted when the row is unloaded: a spawn is cancelled (its group terminated). */
  readonly signal: AbortSignal
  /** HTTP only: a broken event stream, for the owner to check with a ping. */
  readonly onSuspect: (reason: Error) => void
}

/** A fresh transport for one connection attempt. Lookups (executable, credentials) happen again each time. */
export async function createTransport(config: McpConfig, request: TransportRequest): Promise<BridgeTransport> {
  switch (config.transport) {
    case 'stdio':
      return stdioTransport(config, request)
    case 'streamable-http':
      return new HttpTransport({ url: new URL(config.url), headers: await httpHeaders(config, request.services), onSuspect: request.onSuspect })
  }
}

async function stdioTransport(config: StdioServerConfig, { services, signal }: TransportRequest): Promise<StdioTransport> {
  const env = envFromConfig(config.env)
  let executable: string
  try {
    executable = await services.subprocess.resolveExecutable(config.command, { env, signal })
  } catch (error) {
    throw new McpError(`command: ${errorMessage(error)}`, 'MCP_CONNECT_FAILED', { cause: error })
  }
  return new StdioTransport({
    subprocess: services.subprocess,
    spawn: { argv: [executable, ...config.args], cwd: resolve(process.cwd(), config.cwd), env, signal },
    shutdownGraceMs: config.shutdownGraceMs,
  })
}

/** Literal headers, then `envHeaders` and the bearer token read through ctx.credentials (values are never logged). */
async function httpHeaders(config: HttpServerConfig, services: TransportServices): Promise<Record<string, string>> {
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

import { resolve } from 'node:path'
import type { CredentialService } from 'dsh-core'
import type { RemoteServerConfig } from '../config.ts'
import { McpError } from '../errors.ts'
import { loginCommandFor } from './auth-required.ts'
import { OAuthSession } from './session.ts'
import { TokenStore } from './store.ts'
import { userMcpOverlay } from '../user-overlay.ts'

export { userMcpOverlay }

/** Whether the row sets `Authorization` itself, which rules OAuth out. */
function setsAuthorization(config: RemoteServerConfig): boolean {
  return Boolean(config.bearerTokenEnvVar) || [...Object.keys(config.headers), ...Object.keys(config.envHeaders)].some((name) => name.toLowerCase() === 'authorization')
}

/**
 * The OAuth session of a remote row, or undefined when the row cannot use OAuth (`oauth: false`, or
 * it sets `Authorization` itself). `file` is where the row was written, for the login command.
 */
export function rowAuth(config: RemoteServerConfig, options: { file: string | undefined; credentials: Pick<CredentialService, 'resolve'> | undefined; store?: TokenStore }): OAuthSession | undefined {
  if (config.oauth === false || setsAuthorization(config)) return undefined
  const oauth = config.oauth
  const file = options.file && resolve(options.file) !== resolve(userMcpOverlay()) ? options.file : undefined
  /** A credential named by a field of `oauth:`, read through ctx.credentials when a flow starts (a rotated one is picked up). */
  const readable = (field: string, variable: string | undefined) =>
    variable
      ? async () => {
          const found = await options.credentials?.resolve(variable)
          if (!found) throw new McpError(`oauth.${field}: the variable ${variable} is not set (environment, project .env or user .env)`, 'MCP_CREDENTIAL_MISSING')
          return found.value
        }
      : undefined
  return new OAuthSession(options.store ?? new TokenStore(), {
    serverName: config.serverName,
    serverUrl: config.url,
    oauth,
    loginCommand: loginCommandFor(config.serverName, file),
    clientSecret: readable('clientSecretEnv', oauth?.clientSecretEnv),
    privateKey: readable('privateKeyEnv', oauth?.privateKeyEnv),
  })
}

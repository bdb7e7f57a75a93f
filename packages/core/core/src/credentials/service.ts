import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { Context, Service } from 'cordis'
import { HarnessError } from '../errors.ts'
import { currentSession } from '../sessions/current.ts'

declare module 'cordis' {
  interface Context {
    credentials: CredentialService
  }
}

export type CredentialSource = 'env' | 'project' | 'user'

export interface Credential {
  readonly value: string
  readonly source: CredentialSource
}

const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The user's own `.env`: `$DSH_HOME/.env`, else `~/.dsh/.env`. */
export function userEnvFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.DSH_HOME || join(homedir(), '.dsh'), '.env')
}

/**
 * `ctx.credentials`: a secret by variable name, looked up in the process environment, then the
 * project's `.env` (the session workspace), then the user's `.env`. Read on every call, never cached,
 * so a rotated key is picked up without a restart. An empty value counts as absent.
 */
export class CredentialService extends Service {
  constructor(ctx: Context) {
    super(ctx, 'credentials', true)
  }

  async resolve(name: string, options: { cwd?: string } = {}): Promise<Credential | undefined> {
    if (!CREDENTIAL_NAME.test(name)) throw new HarnessError(`credential name ${JSON.stringify(name)} must look like an environment variable name`, 'CREDENTIAL_NAME_INVALID')
    // Own string values only: `toString`, `constructor`, … are valid names but inherited members.
    const fromEnv: unknown = Object.hasOwn(process.env, name) ? process.env[name] : undefined
    if (typeof fromEnv === 'string' && fromEnv) return { value: fromEnv, source: 'env' }
    const cwd = options.cwd ?? currentSession()?.cwd ?? process.cwd()
    const layers: [CredentialSource, string][] = [
      ['project', join(cwd, '.env')],
      ['user', userEnvFile()],
    ]
    for (const [source, file] of layers) {
      const values = await readEnvFile(file)
      const value: unknown = Object.hasOwn(values, name) ? values[name] : undefined
      if (typeof value === 'string' && value) return { value, source }
    }
    return undefined
  }
}

async function readEnvFile(file: string): Promise<Record<string, string>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return {}
  }
  return parseEnv(text) as Record<string, string>
}

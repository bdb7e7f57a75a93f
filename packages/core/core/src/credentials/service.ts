import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { Context, Service } from 'cordis'
import { assertNever, errorMessage, HarnessError } from '../errors.ts'
import { dshHome } from '../home.ts'
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
  return join(dshHome(env), '.env')
}

/** Where a lookup searched and what it found there, so a caller can say why a credential is missing. */
export interface SearchedSource {
  readonly source: CredentialSource
  /** `environment`, or the `.env` file's path. */
  readonly where: string
  readonly outcome: 'found' | 'absent' | 'empty' | 'no file' | 'unreadable'
  /** For `unreadable`: the reason (`EACCES: permission denied`, `not valid UTF-8`). */
  readonly reason?: string
}

export interface CredentialLookup {
  readonly credential: Credential | undefined
  readonly searched: readonly SearchedSource[]
}

/**
 * `ctx.credentials`: a secret by variable name, looked up in the process environment, then the
 * project's `.env` (the session workspace), then the user's `.env`. Read on every call, never cached,
 * so a rotated key is picked up without a restart. An empty value counts as absent. A `.env` that
 * exists but cannot be read is skipped, and the lookup says so.
 */
export class CredentialService extends Service {
  constructor(ctx: Context) {
    super(ctx, 'credentials', true)
  }

  async resolve(name: string, options: { cwd?: string } = {}): Promise<Credential | undefined> {
    return (await this.lookup(name, options)).credential
  }

  /** Like `resolve`, with every place searched and why it did not answer. */
  async lookup(name: string, options: { cwd?: string } = {}): Promise<CredentialLookup> {
    if (!CREDENTIAL_NAME.test(name)) throw new HarnessError(`credential name ${JSON.stringify(name)} must look like an environment variable name`, 'CREDENTIAL_NAME_INVALID')
    const searched: SearchedSource[] = []
    // Own string values only: `toString`, `constructor`, … are valid names but inherited members.
    const fromEnv: unknown = Object.hasOwn(process.env, name) ? process.env[name] : undefined
    if (typeof fromEnv === 'string' && fromEnv) return { credential: { value: fromEnv, source: 'env' }, searched: [{ source: 'env', where: 'environment', outcome: 'found' }] }
    searched.push({ source: 'env', where: 'environment', outcome: fromEnv === '' ? 'empty' : 'absent' })
    const cwd = options.cwd ?? currentSession()?.cwd ?? process.cwd()
    const layers: [CredentialSource, string][] = [
      ['project', join(cwd, '.env')],
      ['user', userEnvFile()],
    ]
    for (const [source, file] of layers) {
      const read = await readEnvFile(file)
      if (!read.ok) {
        searched.push({ source, where: file, ...read.problem })
        if (read.problem.outcome === 'unreadable') this.ctx.logger('credentials').warn(`${file} cannot be read (${read.problem.reason}); it is skipped`)
        continue
      }
      const value: unknown = Object.hasOwn(read.values, name) ? read.values[name] : undefined
      if (typeof value === 'string' && value) return { credential: { value, source }, searched: [...searched, { source, where: file, outcome: 'found' }] }
      searched.push({ source, where: file, outcome: value === '' ? 'empty' : 'absent' })
    }
    return { credential: undefined, searched }
  }
}

/** One line for a message: `not in the environment; /p/.env: no file; ~/.dsh/.env cannot be read (EACCES: …)`. */
export function describeSearch(searched: readonly SearchedSource[]): string {
  return searched
    .map(({ where, outcome, reason }) => {
      const place = where === 'environment' ? 'the environment' : where
      switch (outcome) {
        case 'found':
          return `found in ${place}`
        case 'absent':
          return `not in ${place}`
        case 'empty':
          return `empty in ${place}`
        case 'no file':
          return `${place} does not exist`
        case 'unreadable':
          return `${place} cannot be read (${reason})`
        default:
          return assertNever(outcome, 'search outcome')
      }
    })
    .join('; ')
}

type EnvFile = { ok: true; values: Record<string, string> } | { ok: false; problem: { outcome: 'no file' | 'unreadable'; reason?: string } }

async function readEnvFile(file: string): Promise<EnvFile> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, problem: { outcome: 'no file' } }
    return { ok: false, problem: { outcome: 'unreadable', reason: `${code ?? 'error'}: ${errorMessage(error).replace(/^[A-Z]+: /, '').split(',')[0]}` } }
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return { ok: false, problem: { outcome: 'unreadable', reason: 'not valid UTF-8' } }
  }
  return { ok: true, values: parseEnv(text) as Record<string, string> }
}

import { join } from 'node:path'
import { configParser } from '../config-parser.ts'
import { Context, Service } from 'cordis'
import { z } from 'zod'
import { assertNever, errorMessage, HarnessError, isHarnessError } from '../errors.ts'
import type { FileSystem } from '../fs/service.ts'
import { dshHome } from '../home.ts'
import { hostEnv } from '../host.ts'
import type { CapabilityRow, ProbeContext } from '../readiness/service.ts'
import { currentSession } from '../sessions/current.ts'
import { trustOf } from '../trust/service.ts'

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
  readonly outcome: 'found' | 'absent' | 'empty' | 'no file' | 'unreadable' | 'untrusted'
  /** For `unreadable`: the reason (`EACCES: permission denied`, `not valid UTF-8`); for `untrusted`: the command that trusts the workspace. */
  readonly reason?: string
}

export interface CredentialLookup {
  readonly credential: Credential | undefined
  readonly searched: readonly SearchedSource[]
}

export const CredentialsConfig = z.strictObject({
  /** A `.env` larger than this is not read (a key file is a few hundred bytes). */
  maxEnvFileBytes: z.number().int().positive().max(64 * 1024 * 1024).default(1024 * 1024),
})
export type CredentialsConfig = z.infer<typeof CredentialsConfig>

/**
 * `ctx.credentials`: a secret by variable name, looked up in the process environment, then the
 * project's `.env` (the session workspace; only when the workspace is trusted, see `ctx.trust`),
 * then the user's `.env`. Read on every call, never cached, so a rotated key is picked up without a
 * restart. An empty value counts as absent. A `.env` that exists but cannot be read is skipped, and
 * the lookup says so. Both files are read through `ctx.fs`: regular files only, bounded, opened
 * without blocking, so a FIFO or a device planted as `.env` is refused instead of holding a thread.
 */
export class CredentialService extends Service {
  static Config = configParser(CredentialsConfig)
  static inject = { fs: { required: true }, trust: { required: false }, dshHost: { required: false } }

  private readonly settings: CredentialsConfig
  private readonly files: FileSystem
  private readonly own: Context
  /** The host's environment (hostEnv): the first place a key is looked up, and where the user's `.env` is. */
  private readonly env: NodeJS.ProcessEnv

  constructor(ctx: Context, config: CredentialsConfig = CredentialsConfig.parse({})) {
    super(ctx, 'credentials', true)
    this.settings = config
    this.files = ctx.fs
    this.own = ctx
    this.env = hostEnv(ctx)
    // The readiness row comes later in a preset than this one; register once it is there.
    ctx.inject(['readiness'], (inner) => {
      inner.readiness.register({
        surface: 'credentials',
        id: 'project-env',
        configured: true,
        status: () => ({ state: 'ready', detail: 'the environment, then the project .env (in a trusted workspace), then the user .env' }),
        probeRows: (probe) => this.projectRows(probe),
        probeOnly: true,
      })
    })
  }

  async resolve(name: string, options: { cwd?: string } = {}): Promise<Credential | undefined> {
    return (await this.lookup(name, options)).credential
  }

  /** Like `resolve`, with every place searched and why it did not answer. */
  async lookup(name: string, options: { cwd?: string } = {}): Promise<CredentialLookup> {
    if (!CREDENTIAL_NAME.test(name)) throw new HarnessError(`credential name ${JSON.stringify(name)} must look like an environment variable name`, 'CREDENTIAL_NAME_INVALID')
    const searched: SearchedSource[] = []
    // Own string values only: `toString`, `constructor`, … are valid names but inherited members.
    const fromEnv: unknown = Object.hasOwn(this.env, name) ? this.env[name] : undefined
    if (typeof fromEnv === 'string' && fromEnv) return { credential: { value: fromEnv, source: 'env' }, searched: [{ source: 'env', where: 'environment', outcome: 'found' }] }
    searched.push({ source: 'env', where: 'environment', outcome: fromEnv === '' ? 'empty' : 'absent' })
    const cwd = options.cwd ?? currentSession()?.cwd ?? process.cwd()
    const layers: [CredentialSource, string][] = [
      ['project', join(cwd, '.env')],
      ['user', userEnvFile(this.env)],
    ]
    for (const [source, file] of layers) {
      const read = source === 'project' ? await this.readProjectEnv(cwd, file) : await this.readEnvFile(file)
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

  /** The project's `.env`, when there is one and its workspace is trusted. */
  private async readProjectEnv(cwd: string, file: string): Promise<EnvFile> {
    if (!(await this.files.stat(file))) return { ok: false, problem: { outcome: 'no file' } }
    const decision = await trustOf(this.own).decide(cwd, { brings: `its .env (${file})` })
    if (!decision.trusted) return { ok: false, problem: { outcome: 'untrusted', reason: decision.command } }
    return this.readEnvFile(file)
  }

  private async readEnvFile(file: string): Promise<EnvFile> {
    return readEnvFile(this.files, file, this.settings.maxEnvFileBytes)
  }

  /** `dsh status`: a row only for a project `.env` left unread because its workspace is not trusted. */
  private async projectRows({ cwd }: ProbeContext): Promise<CapabilityRow[]> {
    const file = join(cwd, '.env')
    if (!(await this.files.stat(file))) return []
    const decision = await trustOf(this.own).decide(cwd, { brings: `its .env (${file})` })
    if (decision.trusted) return []
    return [{ id: 'project-env', state: 'untrusted', detail: `${file} is not read: ${decision.directory} is not trusted (its keys are not used; the environment and ${userEnvFile(this.env)} still are); to use it: ${decision.command}` }]
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
        case 'untrusted':
          return `${place} is not read (the workspace is not trusted; ${reason} trusts it)`
        default:
          return assertNever(outcome, 'search outcome')
      }
    })
    .join('; ')
}

type EnvFile = { ok: true; values: Record<string, string> } | { ok: false; problem: { outcome: 'no file' | 'unreadable' | 'untrusted'; reason?: string } }

async function readEnvFile(fs: FileSystem, file: string, maxBytes: number): Promise<EnvFile> {
  let text: string
  try {
    text = await fs.readText(file, { maxBytes })
  } catch (error) {
    if (!isHarnessError(error)) throw error
    switch (error.code) {
      case 'FS_NOT_FOUND':
      case 'FS_NOT_DIRECTORY':
        return { ok: false, problem: { outcome: 'no file' } }
      case 'FS_NOT_TEXT':
        return { ok: false, problem: { outcome: 'unreadable', reason: 'not valid UTF-8 text' } }
      default:
        return { ok: false, problem: { outcome: 'unreadable', reason: `${error.code}: ${errorMessage(error)}` } }
    }
  }
  // Not an import of node:util: on Node 22 that loads worker_threads at start (lazy-load.test.ts).
  return { ok: true, values: process.getBuiltinModule('node:util').parseEnv(text) as Record<string, string> }
}

import { randomUUID } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client'
import { sleep } from 'dsh-core'

/** One login: a server URL and the client that logged in to it. */
export interface LoginRecord {
  readonly serverUrl: string
  /** The configured client ID, or absent for a registered (DCR) or metadata-document client. */
  readonly clientId?: string
  /** The redirect URI the client was registered and authorized with. */
  readonly redirectUrl?: string
  readonly client?: OAuthClientInformationMixed
  readonly tokens?: OAuthTokens
  /** When the access token expires (ms since the epoch), from `expires_in` at the time it was saved. */
  readonly expiresAt?: number
  readonly discovery?: OAuthDiscoveryState
}

/** The store while its lock is held. */
export interface HeldStore {
  get(key: string): Promise<LoginRecord | undefined>
  /** Replaces one login; `undefined` removes it. */
  put(key: string, record: LoginRecord | undefined): Promise<void>
}

interface StoreFile {
  readonly version: 1
  readonly logins: Record<string, LoginRecord>
}

/** How long a lock may be held before it counts as left behind by a process that died. */
const STALE_LOCK_MS = 60_000
const LOCK_POLL_MS = 25

/** `$DSH_HOME/mcp-credentials.json`, else `~/.dsh/mcp-credentials.json`. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.DSH_HOME || join(homedir(), '.dsh'), 'mcp-credentials.json')
}

/** The key of a login: the server URL and the configured client (a registered client is `*`). */
export function loginKey(serverUrl: string, clientId: string | undefined): string {
  return `${serverUrl} ${clientId ?? '*'}`
}

/**
 * The user's OAuth logins, in one JSON file only the user can read (0600, in a 0700 directory).
 * Every read goes to the file, so a login made by another process (`dsh mcp login` while `dsh serve`
 * runs) or a refresh made by another session is seen at once. Writes are atomic (a temporary file,
 * renamed) and serialised across processes by a lock file.
 */
export class TokenStore {
  constructor(readonly path: string = defaultStorePath()) {}

  async get(key: string): Promise<LoginRecord | undefined> {
    return (await this.read()).logins[key]
  }

  async keys(): Promise<string[]> {
    return Object.keys((await this.read()).logins)
  }

  /** Changes one login under the lock (`undefined` from `change` removes it). */
  update(key: string, change: (current: LoginRecord | undefined) => LoginRecord | undefined): Promise<void> {
    return this.locked(async (held) => held.put(key, change(await held.get(key))))
  }

  /**
   * Runs `work` while holding the store's lock: one writer (or refresher) at a time across
   * processes. `work` reads and writes through the handle it is given (the lock is not re-entrant).
   */
  async locked<T>(work: (held: HeldStore) => Promise<T>): Promise<T> {
    const lock = `${this.path}.lock`
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    for (;;) {
      try {
        await (await open(lock, 'wx', 0o600)).close()
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        const held = await stat(lock).then((info) => Date.now() - info.mtimeMs, () => 0)
        if (held > STALE_LOCK_MS) await rm(lock, { force: true })
        else await sleep(LOCK_POLL_MS)
      }
    }
    const held: HeldStore = {
      get: (key) => this.get(key),
      put: async (key, record) => {
        const file = await this.read()
        const logins = { ...file.logins }
        if (record) logins[key] = record
        else delete logins[key]
        await this.write({ version: 1, logins })
      },
    }
    try {
      return await work(held)
    } finally {
      await rm(lock, { force: true })
    }
  }

  private async read(): Promise<StoreFile> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, logins: {} }
      throw error
    }
    const parsed = JSON.parse(text) as Partial<StoreFile>
    return { version: 1, logins: parsed.logins && typeof parsed.logins === 'object' ? parsed.logins : {} }
  }

  private async write(file: StoreFile): Promise<void> {
    const directory = dirname(this.path)
    await mkdir(directory, { recursive: true, mode: 0o700 })
    const temporary = join(directory, `.mcp-credentials.${randomUUID()}.tmp`)
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`)
    } finally {
      await handle.close()
    }
    // A umask cannot widen 0600, but a file created by an older tool might be wider: say it plainly.
    await chmod(temporary, 0o600)
    await rename(temporary, this.path)
  }
}

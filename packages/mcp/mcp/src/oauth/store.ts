import { dirname, join } from 'node:path'
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client'
import { dshHome, ensurePrivateDirectory, errorMessage, readSmallRegularFile, writePrivateFile } from 'dsh-core'
import { McpError } from '../errors.ts'
import { FileLock, type LockTimings } from './lock.ts'

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
  /**
   * The scope a live connection was last refused for (403 `insufficient_scope`), with what it held:
   * the next `dsh mcp login` asks for it. A login clears it.
   */
  readonly requiredScope?: string
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

export interface TokenStoreOptions {
  /** A lock not refreshed for this long (its holder refreshes it every quarter of it) was left by a process that died or froze. */
  readonly lockStaleMs?: number
  /** How long to wait for the lock while another process holds it (a refresh holds it at most `oauth.tokenTimeoutMs`). */
  readonly lockWaitMs?: number
}

export const DEFAULT_LOCK_STALE_MS = 10_000
export const DEFAULT_LOCK_WAIT_MS = 60_000
/** Largest token store read: logins are a few KiB each; a bigger file is not one dsh wrote. */
export const MAX_TOKEN_STORE_BYTES = 4 * 1024 * 1024

/** `$DSH_HOME/mcp-credentials.json`, else `~/.dsh/mcp-credentials.json`. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dshHome(env), 'mcp-credentials.json')
}

/** The key of a login: the server URL and the configured client (a registered client is `*`). */
export function loginKey(serverUrl: string, clientId: string | undefined): string {
  return `${serverUrl} ${clientId ?? '*'}`
}

/**
 * The user's OAuth logins, in one JSON file only the user can read (0600, in a 0700 directory).
 * Every read goes to the file, so a login made by another process (`dsh mcp login` while `dsh serve`
 * runs) or a refresh made by another session is seen at once. Writes are atomic (a temporary file,
 * renamed) and serialised across processes by a lock file that its holder keeps fresh (`FileLock`).
 */
export class TokenStore {
  private readonly lockTimings: LockTimings

  constructor(
    readonly path: string = defaultStorePath(),
    options: TokenStoreOptions = {},
  ) {
    this.lockTimings = { staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS, waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS }
  }

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
    await ensurePrivateDirectory(dirname(this.path))
    const lock = await FileLock.acquire(`${this.path}.lock`, this.lockTimings)
    const held: HeldStore = {
      get: (key) => this.get(key),
      put: async (key, record) => {
        // A holder that froze past the stale time may have been taken over: then it writes nothing.
        await lock.verify()
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
      await lock.release()
    }
  }

  /** Bounded, and only a regular file (a FIFO in its place would block a plain read for good): else MCP_TOKEN_STORE_INVALID. */
  private async read(): Promise<StoreFile> {
    let text: string
    let parsed: Partial<StoreFile>
    try {
      text = await readSmallRegularFile(this.path, MAX_TOKEN_STORE_BYTES)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, logins: {} }
      throw new McpError(`the OAuth token store ${errorMessage(error)}`, 'MCP_TOKEN_STORE_INVALID', { cause: error })
    }
    try {
      parsed = JSON.parse(text) as Partial<StoreFile>
    } catch (error) {
      throw new McpError(`the OAuth token store ${this.path} is not JSON: ${errorMessage(error)}`, 'MCP_TOKEN_STORE_INVALID', { cause: error })
    }
    return { version: 1, logins: parsed.logins && typeof parsed.logins === 'object' ? parsed.logins : {} }
  }

  private write(file: StoreFile): Promise<void> {
    return writePrivateFile(this.path, `${JSON.stringify(file, null, 2)}\n`)
  }
}

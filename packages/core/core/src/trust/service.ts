import { Context, Service } from 'cordis'
import { configParser } from '../config-parser.ts'
import { z } from 'zod'
import { errorMessage, HarnessError } from '../errors.ts'
import { hostEnv, type HostInfo } from '../host.ts'
import { findHomeDirectory } from '../home.ts'
import { unwatchFile, watchFile, type Stats } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { scopeLifetime, type Lifetime } from '../lifetime/lifetime.ts'
import { covers, TRUST_LOCK_TIMINGS, TrustStore, trustStoreFile, type TrustRecord } from './store.ts'
import { CONTROL_CHARACTER_CLASS } from '../control-characters.ts'

declare module 'cordis' {
  interface Context {
    trust: TrustService
  }
}

/** What a harness's trust dialog is asked. */
export interface TrustQuestion {
  /** The canonical workspace directory. */
  readonly directory: string
  /** What would be used if it were trusted (`the workspace's typescript 5.9.3 (node_modules/typescript)`). */
  readonly brings: string
  /** The user's recorded decision for it (`trusted.json`, nearest recorded directory), if any. */
  readonly recorded: boolean | undefined
  /** Aborts (reason `TRUST_DISPOSED`) when the trust service is unloaded: a dialog still open should close. */
  readonly signal: AbortSignal
}

/**
 * A harness's own decision: `true` trusts, `false` does not, `undefined` leaves it to the recorded
 * decision (untrusted when there is none). It may ask its user; it may record the answer itself
 * (`ctx.trust.trust(dir)`) or keep it to the session.
 */
export type TrustHook = (question: TrustQuestion) => boolean | undefined | Promise<boolean | undefined>

export interface TrustDecision {
  readonly trusted: boolean
  /** The canonical directory decided on. */
  readonly directory: string
  /** `hook`: a harness (or the `dsh` terminal prompt) answered; `record`: trusted.json; `default`: nobody decided, so untrusted. */
  readonly by: 'hook' | 'record' | 'default'
  /** For `record`: the recorded directory that decided (the directory itself or an ancestor). */
  readonly recordedFor?: string
  /** The command that trusts it: `dsh trust /w` (for `revokedBelow`, `dsh trust /w/vendor`). */
  readonly command: string
  /**
   * For a `subtree` question only: a directory below it recorded as untrusted (`/w/vendor` revoked
   * inside a trusted `/w`), which leaves it untrusted. Say {@link untrustedReason}.
   */
  readonly revokedBelow?: string
  /**
   * For a `readsAbove` question only: what was found in an untrusted directory above it
   * (`/w/.cargo` above a trusted `/w/app`), which leaves it untrusted. Say {@link untrustedReason}.
   */
  readonly untrustedAbove?: string
}

export interface DecideOptions {
  /** What the caller would use if the directory were trusted; shown to whoever is asked. */
  readonly brings: string
  readonly signal?: AbortSignal | undefined
  /**
   * `false`: nobody is asked for this caller; the recorded decision answers, or a question already
   * open about the directory (someone else's) once it is answered. For a caller whose untrusted
   * default is a safe one the user need not weigh (tsserver without type acquisition, Go without
   * toolchain downloads): a question about that alone would be asked in every such workspace and
   * teach users to say yes. Default `true`.
   */
  readonly ask?: boolean
  /**
   * `true`: the caller runs what is anywhere below the directory (a language server rooted there
   * loads, builds and follows the whole tree: rust-analyzer runs every crate's build script), so a
   * directory below it the user recorded as untrusted (`dsh trust --revoke /w/vendor` inside a
   * trusted `/w`) leaves it untrusted (`revokedBelow`). Default `false`: the directory's own
   * decision, for what the directory itself brings (its `.env`, its `.mcp.json`, its skills).
   */
  readonly subtree?: boolean
  /**
   * Names the caller's tools look up in every directory above the directory (cargo's `.cargo`,
   * rustup's `rust-toolchain.toml`, go's `go.work`, the `node_modules` Node resolves a module a
   * tsconfig names from): one present in a directory above it that is not trusted leaves it
   * untrusted (`untrustedAbove`), as a trusted `/w/app` inside an untrusted `/w` is for cargo, which
   * reads `/w/.cargo/config.toml` (a `rustc-wrapper` runs). Nobody is asked. The user's home and the
   * directories holding it are the user's own and are not looked at. Default none.
   */
  readonly readsAbove?: readonly string[]
}

/** Anything that can decide (the service, or the recorded decisions alone when no trust row is mounted). */
export interface TrustDecider {
  decide(directory: string, options: DecideOptions): Promise<TrustDecision>
  /**
   * Calls `listener` after trusted.json changed (another process's `dsh trust --revoke`); returns its
   * disposer. Absent on a decider that watches nothing (the recorded decisions alone).
   */
  onChange?(listener: TrustChangeListener): () => void
}

/** Told that the recorded decisions may have changed; it decides again what it still allows (`ask: false`). */
export type TrustChangeListener = () => void | Promise<void>

export const TrustConfig = z.strictObject({
  /** Where decisions are recorded. Default `$DSH_HOME/trusted.json` (else `~/.dsh/trusted.json`). */
  file: z.string().min(1).optional(),
  /** How long a write waits for another writer's lock on the file (`TRUST_STORE_LOCKED` then). Default 30 000. */
  lockWaitMs: z.number().int().positive().default(TRUST_LOCK_TIMINGS.waitMs),
  /** A lock nobody refreshed for this long was left by a process that died. Default 10 000. */
  lockStaleMs: z.number().int().positive().default(TRUST_LOCK_TIMINGS.staleMs),
  /**
   * How often, while someone listens (`onChange`), the file is looked at for a change another process
   * made: one stat each time. Default 1 000.
   */
  watchIntervalMs: z.number().int().positive().default(1000),
})
export type TrustConfig = z.input<typeof TrustConfig>

/**
 * `ctx.trust`: whether a workspace directory is trusted to bring its own code and configuration
 * (its TypeScript, its `.mcp.json`, its `.env`, its skills). A decision is per canonical directory
 * and covers what is below it. The latest registered hook (a harness's trust dialog) decides first;
 * without one, or when it passes, the user's recorded decision; without that, untrusted. Concurrent
 * questions about one directory are asked once.
 */
export class TrustService extends Service implements TrustDecider {
  static Config = configParser(TrustConfig)
  static inject = { dshHost: { required: false } }

  readonly store: TrustStore
  private readonly hooks: TrustHook[] = []
  private readonly asking = new Map<string, Promise<TrustDecision>>()
  private readonly lifetime: Lifetime
  private readonly listeners = new Set<TrustChangeListener>()
  private readonly watchIntervalMs: number
  private watching: ((current: Stats, previous: Stats) => void) | undefined

  constructor(ctx: Context, config: TrustConfig = {}) {
    super(ctx, 'trust', true)
    // A broken file fails closed (everything untrusted); without a word, `dsh status` would only
    // suggest `dsh trust <dir>`, which then refuses to overwrite it.
    let told = false
    const file = config.file ?? trustStoreFile(hostEnv(ctx))
    this.store = new TrustStore(file, (problem) => {
      if (told) return
      told = true
      ctx.logger('trust').warn(`${file} decides nothing (${problem}); every workspace is untrusted until it is fixed or removed`)
    }, { waitMs: config.lockWaitMs ?? TRUST_LOCK_TIMINGS.waitMs, staleMs: config.lockStaleMs ?? TRUST_LOCK_TIMINGS.staleMs })
    this.lifetime = scopeLifetime(ctx, () => new HarnessError('the trust service was unloaded while a trust question was open', 'TRUST_DISPOSED'))
    this.watchIntervalMs = config.watchIntervalMs ?? 1000
    this.lifetime.onEnd(() => this.unwatch())
  }

  /**
   * Calls `listener` after trusted.json changed, whoever changed it (`dsh trust --revoke` in another
   * shell); an effect on the caller's scope. A long-lived host's consumers decide again what they
   * started under a decision that may be revoked. The file is polled (a stat every
   * `watchIntervalMs`) only while someone listens: its directory may not exist yet, which a
   * directory watcher could not follow, and a replacing rename (how every writer writes it) is seen
   * as a new inode.
   */
  onChange(listener: TrustChangeListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('ctx.trust.onChange needs a function')
    return this.ctx.effect(() => {
      this.listeners.add(listener)
      this.watch()
      return () => {
        this.listeners.delete(listener)
        if (this.listeners.size === 0) this.unwatch()
      }
    })
  }

  private watch(): void {
    if (this.watching || !this.lifetime.active) return
    const changed = (current: Stats, previous: Stats) => {
      if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return
      for (const listener of [...this.listeners]) {
        // A listener's failure is its own: the others are still told, and nothing goes unhandled.
        void Promise.resolve()
          .then(listener)
          .catch((error: unknown) => this.ctx.logger('trust').warn(`a trust change listener failed: ${errorMessage(error)}`))
      }
    }
    // Not persistent: a host with nothing else to do exits.
    watchFile(this.store.file, { persistent: false, interval: this.watchIntervalMs }, changed)
    this.watching = changed
  }

  private unwatch(): void {
    if (!this.watching) return
    unwatchFile(this.store.file, this.watching)
    this.watching = undefined
  }

  /** Replaces the decision with the harness's own (`hook`); an effect on the caller's scope: disposing hands back to the one before. */
  decider(hook: TrustHook): () => void {
    if (typeof hook !== 'function') throw new TypeError('ctx.trust.decider needs a function')
    return this.ctx.effect(() => {
      this.hooks.push(hook)
      return () => {
        const index = this.hooks.lastIndexOf(hook)
        if (index >= 0) this.hooks.splice(index, 1)
      }
    })
  }

  /** Whether `directory` is trusted, asking the hook if one is registered. Never throws for a hook's failure (that is untrusted, logged). */
  async decide(directory: string, options: DecideOptions): Promise<TrustDecision> {
    const canonical = await TrustStore.canonical(directory)
    // Nobody is asked about a tree the user already said part of is not to be trusted, nor about one
    // whose tools read an untrusted directory above it: a yes about this directory would not help.
    const refused = await refusedAround(this.store, canonical, options, hostEnv(this.ctx))
    if (refused) return refused
    let asked = this.asking.get(canonical)
    if (!asked && options.ask === false) return recordedDecision(this.store, canonical)
    if (!asked) {
      asked = this.ask(canonical, options.brings).finally(() => this.asking.delete(canonical))
      this.asking.set(canonical, asked)
    }
    // One caller giving up stops its own wait only: the question stays open for the others.
    const question = asked
    return this.lifetime.run({ signal: options.signal }, () => question)
  }

  /** The recorded decision alone: no hook is asked. */
  recorded(directory: string): Promise<TrustDecision> {
    return recordedDecision(this.store, directory)
  }

  /** Records `directory` (canonicalised) as trusted. */
  trust(directory: string): Promise<TrustRecord> {
    return this.store.record(directory, true)
  }

  /** Records `directory` as untrusted (a nearer decision than a trusted ancestor's). */
  revoke(directory: string): Promise<TrustRecord> {
    return this.store.record(directory, false)
  }

  list(): Promise<TrustRecord[]> {
    return this.store.list()
  }

  private async ask(directory: string, brings: string): Promise<TrustDecision> {
    const recorded = await recordedDecision(this.store, directory)
    const hook = this.hooks.at(-1) ?? (this.ctx.get('dshHost') as HostInfo | undefined)?.askTrust
    if (!hook) return recorded
    let answer: unknown
    try {
      answer = await hook({ directory, brings, recorded: recorded.by === 'record' ? recorded.trusted : undefined, signal: this.lifetime.signal })
    } catch (error) {
      this.ctx.logger('trust').warn(`the trust hook failed for ${directory} (${errorMessage(error)}); it stays untrusted`)
      return { trusted: false, directory, by: 'default', command: trustCommand(directory) }
    }
    if (answer === undefined) return recorded
    if (typeof answer !== 'boolean') {
      this.ctx.logger('trust').warn(`the trust hook answered ${JSON.stringify(answer)} for ${directory} (true, false or undefined expected); it stays untrusted`)
      return { trusted: false, directory, by: 'default', command: trustCommand(directory) }
    }
    return { trusted: answer, directory, by: 'hook', command: trustCommand(directory) }
  }
}

async function recordedDecision(store: TrustStore, directory: string): Promise<TrustDecision> {
  const canonical = await TrustStore.canonical(directory)
  const record = await store.lookup(canonical)
  const command = trustCommand(canonical)
  return record ? { trusted: record.trusted, directory: canonical, by: 'record', recordedFor: record.directory, command } : { trusted: false, directory: canonical, by: 'default', command }
}

/**
 * For a `subtree` question: the untrusted decision when the user recorded a directory below
 * `directory` as untrusted, since whatever runs over the whole tree would run that directory's code
 * too. The record below is the user's own word, so it stands whatever `directory`'s own decision is.
 */
async function revokedBelow(store: TrustStore, directory: string): Promise<TrustDecision | undefined> {
  const revoked = (await store.list()).find((record) => !record.trusted && record.directory !== directory && covers(directory, record.directory))
  if (!revoked) return undefined
  return { trusted: false, directory, by: 'record', recordedFor: revoked.directory, command: trustCommand(revoked.directory), revokedBelow: revoked.directory }
}

/**
 * For a `readsAbove` question: the untrusted decision when one of `names` is in a directory above
 * `directory` that is not trusted. Every directory up to the user's home (not it) is looked at, or
 * up to `/` for a directory outside the home.
 */
async function untrustedAbove(store: TrustStore, directory: string, names: readonly string[], env: NodeJS.ProcessEnv): Promise<TrustDecision | undefined> {
  const found = findHomeDirectory(env)
  const home = 'home' in found ? await TrustStore.canonical(found.home) : undefined
  for (let current = directory, above = dirname(directory); above !== current; current = above, above = dirname(above)) {
    if (home !== undefined && covers(above, home)) return undefined
    for (const name of names) {
      const path = join(above, name)
      try {
        await lstat(path)
      } catch {
        continue
      }
      const decision = await recordedDecision(store, above)
      if (!decision.trusted) return { trusted: false, directory, by: decision.by, ...(decision.recordedFor === undefined ? {} : { recordedFor: decision.recordedFor }), command: decision.command, untrustedAbove: path }
    }
  }
  return undefined
}

/** The untrusted decision a `subtree` or `readsAbove` question gets from the records around the directory, if any. */
async function refusedAround(store: TrustStore, directory: string, options: DecideOptions, env: NodeJS.ProcessEnv): Promise<TrustDecision | undefined> {
  const below = options.subtree === true ? await revokedBelow(store, directory) : undefined
  return below ?? (options.readsAbove?.length ? untrustedAbove(store, directory, options.readsAbove, env) : undefined)
}

/**
 * Why an untrusted decision is: `/w is not trusted`, `/w holds /w/vendor, which is not trusted`, or
 * `/w/app's tools read /w/.cargo, and /w is not trusted`.
 */
export function untrustedReason(decision: TrustDecision): string {
  if (decision.revokedBelow !== undefined) return `${decision.directory} holds ${decision.revokedBelow}, which is not trusted`
  if (decision.untrustedAbove !== undefined) return `its tools read ${decision.untrustedAbove} above ${decision.directory}, and ${dirname(decision.untrustedAbove)} is not trusted`
  return `${decision.directory} is not trusted`
}

/**
 * The decider a plugin uses: the host's `ctx.trust`, or, in a composition that mounts no trust row,
 * the user's recorded decisions alone (nobody to ask, so untrusted unless recorded).
 */
export function trustOf(ctx: Context): TrustDecider {
  // The host's service watches trusted.json for its consumers (onChange); the fallback watches nothing.
  const service = ctx.get('trust')
  if (service) return service
  const store = new TrustStore()
  return {
    decide: async (directory, options) => {
      const canonical = await TrustStore.canonical(directory)
      return (await refusedAround(store, canonical, options, hostEnv(ctx))) ?? recordedDecision(store, canonical)
    },
  }
}

/** `dsh trust <dir>`, the directory quoted for a POSIX shell when it needs it. */
export function trustCommand(directory: string): string {
  return `dsh trust ${shellWord(directory)}`
}

function shellWord(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text
  // A control character (a line feed in a directory's name) would split the suggestion it is shown in
  // and act on a terminal: bash's and zsh's $'…' quoting spells it as an escape and means the same path.
  if (CONTROL.test(text)) return `$'${text.replace(/[\\']/g, '\\$&').replace(CONTROL_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`
  return `'${text.replaceAll("'", `'\\''`)}'`
}

const CONTROL = new RegExp(CONTROL_CHARACTER_CLASS)
const CONTROL_ALL = new RegExp(CONTROL_CHARACTER_CLASS, 'g')

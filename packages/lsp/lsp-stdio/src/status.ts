import { basename } from 'node:path'
import { assertNever, errorMessage, type CapabilityStatus } from 'dsh-core'
import { LspError, type LspProvider } from 'dsh-lsp'
import type { ServerInstance } from './instance.ts'
import type { Launcher } from './launch.ts'
import type { ServerRoot } from './roots.ts'
import type { FailureKind } from './supervision.ts'

/** What the provider knows when `dsh status` asks. */
export interface ProviderView {
  readonly launcher: Launcher
  /** Why restarts are blocked (the crash budget), if they are. */
  readonly blocked: string | undefined
  /** The most recently used server still in the pool. */
  readonly newest: ServerInstance | undefined
  /** Every server still running (one per root). */
  readonly live: readonly ServerInstance[]
  readonly lastCrash: LspError | undefined
  /** Why the server cannot run although its executable exists (its preflight failed). */
  readonly unusable: string | undefined
}

/** Blocked restarts, else the most recently used server's state, else a failed preflight, else the last crash, else idle. */
export function providerStatus(view: ProviderView): CapabilityStatus {
  if (view.blocked) return { state: 'crashed', detail: view.blocked }
  const instance = view.newest
  if (instance) {
    const state = instance.state
    switch (state) {
      case 'starting':
        return { state: 'starting', detail: describe(instance) + alsoRunning(view.live, instance) }
      case 'indexing':
        return { state: 'indexing', detail: `${instance.indexingTitle ?? 'indexing'} (${describe(instance)})${alsoRunning(view.live, instance)}` }
      case 'ready':
        return { state: 'ready', detail: describe(instance) + expiredNote(instance) + alsoRunning(view.live, instance) }
      case 'stopped':
        break
      default:
        return assertNever(state, 'instance state')
    }
  }
  if (view.unusable) return { state: 'unavailable', detail: view.unusable }
  if (view.lastCrash) return { state: 'crashed', detail: view.lastCrash.message }
  return { state: 'idle', detail: `${view.launcher.describe()}; starts on the first query` }
}

/** A probe that failed: a crash shows as crashed (so does a budget that blocks restarts); anything else (a bad workspace, a cancelled probe) as unavailable. */
export function probeFailureStatus(error: unknown, kind: FailureKind): CapabilityStatus {
  const code = error instanceof LspError ? error.code : undefined
  if (code === 'LSP_UNTRUSTED') return { state: 'untrusted', detail: errorMessage(error) }
  return { state: kind !== 'none' || code === 'LSP_SERVER_CRASHED' ? 'crashed' : 'unavailable', detail: errorMessage(error) }
}

/** Every row ends with the extensions and file names its server answers for (`[.go]`, `[.dockerfile Dockerfile Dockerfile.*]`). */
export function withRoutes(status: CapabilityStatus, routes: Pick<LspProvider, 'extensionToLanguage' | 'filenameToLanguage'>): CapabilityStatus {
  const served = [...Object.keys(routes.extensionToLanguage), ...Object.keys(routes.filenameToLanguage ?? {})]
  return { state: status.state, detail: `${status.detail} [${served.join(' ')}]` }
}

/**
 * `typescript-language-server 5.3.0, pid 42, workspace /w` (or `root /w/api (go.mod)` when a root
 * marker chose the directory), after the launch's label when it has one (`tsserver 5.9.3: …`).
 */
function describe(instance: ServerInstance): string {
  const info = instance.serverInfo
  const { label, executable } = instance.launch
  const version = info?.version && SHORT_VERSION.test(info.version) ? ` ${info.version}` : ''
  const name = info ? `${info.name}${version}` : basename(executable)
  return `${label ? `${label}: ` : ''}${name}, pid ${instance.pid}, ${where(instance.workspace)}`
}

/** A version to show; some servers put a whole build description there (gopls: a JSON object). */
const SHORT_VERSION = /^[^\s{}]{1,40}$/

function where(root: ServerRoot): string {
  return root.marker ? `root ${root.path} (${root.marker})` : `workspace ${root.path}`
}

/** `; also running: /w/a (go.mod), /w/b (go.mod)`: the other roots with a server, if any. */
function alsoRunning(live: readonly ServerInstance[], shown: ServerInstance): string {
  const others = live.filter((instance) => instance !== shown).map(({ workspace }) => (workspace.marker ? `${workspace.path} (${workspace.marker})` : workspace.path))
  return others.length ? `; also running: ${others.join(', ')}` : ''
}

function expiredNote(instance: ServerInstance): string {
  const expired = instance.expiredProgress
  return expired ? `; progress "${expired.title}" never ended and was treated as ended after ${expired.lifetimeMs} ms (progressTimeoutMs)` : ''
}

import type { Context } from 'cordis'
import type { TrustHook } from './trust/service.ts'

/**
 * How long the host runs. `one-shot`: a command that answers once and exits (`dsh call`, `context`,
 * `tools`, `status`) — nothing it starts can see a later change, so plugins skip work that only pays
 * off over time (file watchers, warm-ups). `long-lived`: `dsh serve` and applications that embed the
 * plugins; the default when a host says nothing.
 */
export type HostLifetime = 'one-shot' | 'long-lived'

/** What the host tells its plugins about itself (`ctx.get('dshHost')`); set by `bootPreset`. */
export interface HostInfo {
  readonly lifetime: HostLifetime
  /** The directory the host works in (`dsh --cwd`); absolute. Absent: the process directory. */
  readonly workspace?: string
  /**
   * How this host asks its user whether a workspace is trusted (the `dsh` terminal prompt); asked
   * when no hook is registered with `ctx.trust.decider`. Absent: nobody to ask.
   */
  readonly askTrust?: TrustHook
  /**
   * The environment the host was started with (`dsh`'s own, or what a caller running a command in
   * its process gave it): where the trust store, the user's `.env`, overlays and keys are found.
   * Absent: the process's.
   */
  readonly env?: NodeJS.ProcessEnv
}

declare module 'cordis' {
  interface Context {
    dshHost: HostInfo
  }
}

/**
 * The host's lifetime as a plugin sees it. A plugin reading it declares `dshHost` as an optional
 * inject; a host that never set it (an embedding app) is long-lived.
 */
export function hostLifetime(ctx: Context): HostLifetime {
  return (ctx.get('dshHost') as HostInfo | undefined)?.lifetime ?? 'long-lived'
}

/**
 * The host's workspace as a plugin sees it: what `bootPreset({ workspace })` was told (`dsh
 * --cwd`), else the process directory. For work that outlives any one session, such as a server
 * started at boot; a tool call has its session's `cwd`.
 */
export function hostWorkspace(ctx: Context): string {
  return (ctx.get('dshHost') as HostInfo | undefined)?.workspace ?? process.cwd()
}

/**
 * The host's environment as a plugin sees it: what `bootPreset({ env })` was told, else the
 * process's. Read it instead of `process.env` for anything the host's user chooses (homes, keys).
 */
export function hostEnv(ctx: Context): NodeJS.ProcessEnv {
  return (ctx.get('dshHost') as HostInfo | undefined)?.env ?? process.env
}

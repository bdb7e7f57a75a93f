import type { Context } from 'cordis'

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

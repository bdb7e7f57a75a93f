import { assertNever } from 'dsh-core'
import { WebError } from './errors.ts'
import { retryAfterMs, type ProviderFault } from './fault.ts'
import { providerText } from './provider-text.ts'

/**
 * Where a search provider stands for selection. `ready`: it is tried. `no_credential`: its last
 * search found no key (it is tried again on every call: the lookup is local and a key may be
 * stored at any moment). `cooling_down`: rate limited or down, skipped until `until`. `failing`:
 * a fault time will not fix: an unreadable answer (skipped until `until` too), or a refused key
 * (no `until`: failing until the key changes, which only the provider can see, so every search
 * reaches it and it refuses the old key locally). `unavailable`: not registered, or `available()`
 * is false.
 */
export type SearchProviderState = 'ready' | 'no_credential' | 'cooling_down' | 'failing' | 'unavailable'

export interface SearchProviderReport {
  readonly id: string
  readonly state: SearchProviderState
  /** Epoch milliseconds when a `cooling_down` or `failing` provider is tried again (none for a refused key). */
  readonly until?: number
  /** Why it is not ready (one line); empty for `ready`. */
  readonly reason: string
}

export interface HealthSettings {
  /** Cooldown after a fault that did not say how long (no usable `Retry-After`). */
  readonly cooldownMs: number
  /** Longest cooldown, whatever `Retry-After` says; also the cooldown of a spent quota. */
  readonly maxCooldownMs: number
  /** The clock; tests inject one. */
  readonly now: () => number
}

/** What a search attempt showed about its provider. */
export type Verdict =
  /** It answered: a result, or an error about the request (a 400). Clears any setback. */
  | { readonly kind: 'answered' }
  /** The caller aborted: nothing learned. */
  | { readonly kind: 'aborted' }
  | { readonly kind: 'no_credential'; readonly reason: string }
  | { readonly kind: 'fault'; readonly fault: ProviderFault; readonly reason: string }

interface Setback {
  readonly state: 'no_credential' | 'cooling_down' | 'failing'
  readonly reason: string
  /** 0 when the provider itself decides at each search (no credential, a refused key): never skipped. */
  readonly until: number
  /** A call is trying the provider again after `until`; the others keep skipping it meanwhile. */
  trial: boolean
}

/**
 * The search providers' setbacks, one record per provider id, shared by every session of the host
 * (the `ctx.web` service owns one). A provider is skipped while cooling down; when the cooldown
 * ends, exactly one call tries it again while concurrent calls keep skipping it, so twenty
 * searches at the end of a cooldown send one request, not twenty.
 */
export class SearchHealth {
  private readonly setbacks = new Map<string, Setback>()

  constructor(private readonly settings: HealthSettings) {}

  /**
   * Claims an attempt on `id`, or says why it must be skipped now. The claim must be settled
   * (`settle`) whatever happens.
   */
  claim(id: string): { readonly claimed: true } | { readonly claimed: false; readonly report: SearchProviderReport } {
    const setback = this.setbacks.get(id)
    if (!setback || setback.until === 0) return { claimed: true }
    if (this.settings.now() < setback.until || setback.trial) return { claimed: false, report: this.report(id) }
    setback.trial = true
    return { claimed: true }
  }

  settle(id: string, verdict: Verdict): void {
    switch (verdict.kind) {
      case 'answered':
        this.setbacks.delete(id)
        return
      case 'aborted': {
        // Nothing learned; a claimed trial is free for the next call.
        const setback = this.setbacks.get(id)
        if (setback) setback.trial = false
        return
      }
      case 'no_credential':
        this.setbacks.set(id, { state: 'no_credential', reason: verdict.reason, until: 0, trial: false })
        return
      case 'fault':
        this.setbacks.set(id, this.setbackOf(verdict.fault, verdict.reason))
        return
      default:
        assertNever(verdict)
    }
  }

  /** The provider's state as far as its record goes (a registered, available provider is otherwise ready). */
  report(id: string): SearchProviderReport {
    const setback = this.setbacks.get(id)
    if (!setback) return { id, state: 'ready', reason: '' }
    if (setback.until === 0) return { id, state: setback.state, reason: setback.reason }
    if (this.settings.now() < setback.until || setback.trial) return { id, state: setback.state, until: setback.until, reason: setback.reason }
    return { id, state: 'ready', reason: '' }
  }

  /** True while `id`'s key stands refused (its setback ends when the provider finds another key). */
  keyRefused(id: string): boolean {
    const setback = this.setbacks.get(id)
    return setback?.state === 'failing' && setback.until === 0
  }

  private setbackOf(fault: ProviderFault, reason: string): Setback {
    const { cooldownMs, maxCooldownMs, now } = this.settings
    const cooling = (ms: number): Setback => ({ state: 'cooling_down', reason, until: now() + Math.min(ms, maxCooldownMs), trial: false })
    switch (fault.kind) {
      case 'rate_limited':
      case 'unavailable':
        return cooling(retryAfterMs(fault.retryAfter, now()) ?? cooldownMs)
      case 'quota_exhausted':
        return cooling(retryAfterMs(fault.retryAfter, now()) ?? maxCooldownMs)
      case 'failing':
        return { state: 'failing', reason, until: now() + cooldownMs, trial: false }
      case 'key_refused':
        return { state: 'failing', reason, until: 0, trial: false }
      default:
        return assertNever(fault)
    }
  }
}

/**
 * What a failed attempt says about the provider. The caller's abort teaches nothing; a missing key
 * and a provider fault move on to the next provider; the provider's own deadline counts as down.
 * Any other error (a refused query, a bug) is an answer: it goes to the caller as it is.
 */
export function verdictOf(error: unknown, signal: { readonly aborted: boolean } | undefined): Verdict {
  if (signal?.aborted) return { kind: 'aborted' }
  if (!(error instanceof WebError)) return { kind: 'answered' }
  // One line, bounded, without a closing full stop: reasons are listed one after another.
  const reason = providerText(error.message, [], MAX_REASON).replace(/\.$/, '')
  if (error.code === 'WEB_ABORTED') return { kind: 'aborted' }
  // The remedies after the first sentence are the same for every provider; dsh status shows them whole.
  if (error.code === 'WEB_PROVIDER_CREDENTIAL_MISSING') return { kind: 'no_credential', reason: firstSentence(reason) }
  if (error.fault) return { kind: 'fault', fault: error.fault, reason }
  if (error.code === 'WEB_SEARCH_TIMEOUT') return { kind: 'fault', fault: { kind: 'unavailable' }, reason }
  return { kind: 'answered' }
}

function firstSentence(text: string): string {
  const end = text.indexOf('. ')
  return end < 0 ? text : text.slice(0, end)
}

/** Longest reason kept per provider, so a list of every provider's state stays readable. */
const MAX_REASON = 200

/** `cooling down until 2026-01-01T00:01:00.000Z: <reason>`, the one-line form of a report. */
export function describeReport(report: SearchProviderReport): string {
  const setback = setbackDetail(report)
  return `${report.state.replace('_', ' ')}${setback ? `${report.until === undefined ? ': ' : ' '}${setback}` : ''}`
}

/** `until 2026-01-01T00:01:00.000Z: <reason>`, or the reason alone when there is no end. */
export function setbackDetail(report: SearchProviderReport): string {
  const when = report.until === undefined ? '' : `until ${new Date(report.until).toISOString()}`
  return [when, report.reason].filter(Boolean).join(': ')
}

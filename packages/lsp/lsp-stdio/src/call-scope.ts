import type { AbortFallback, Lifetime } from 'dsh-core'

/**
 * The bounds of one provider call: it ends when the caller's lifetime does, or the provider's
 * (`owner`: its disposal ends the call without ending the caller's lifetime). The lifetime that
 * carries both, a child of the caller's, is made only when a step asks for it (a wait, a server
 * start, a read of bytes): a warm query asks for none, and its request follows the two lifetimes
 * itself. Without an owner the caller's lifetime is the call's.
 */
export class CallScope {
  private made: Lifetime | undefined
  private unfollow: (() => void) | undefined
  /** The call's outcome, once `endsWith` named it. */
  private ending: Promise<unknown> | undefined
  /** True until the call's first synchronous pass returns (see `inFirstPass`). */
  private passing = true

  constructor(
    readonly caller: Lifetime,
    readonly owner?: Lifetime,
  ) {}

  get aborted(): boolean {
    return this.caller.aborted || this.owner?.aborted === true || this.made?.aborted === true
  }

  /** The first end's reason: the call's lifetime's once made, else the provider's disposal, else the caller's. */
  get reason(): unknown {
    if (this.made) return this.made.reason
    return this.owner?.aborted ? this.owner.reason : this.caller.reason
  }

  /**
   * True while the call is still in the pass that started it: no step has waited, so nothing (a
   * write, a change told) can have happened since a proof this pass took. False once that pass has
   * returned (`firstPassOver`): a step running now resumed after a wait.
   */
  get inFirstPass(): boolean {
    return this.passing
  }

  /** The pass that started the call has returned: whatever runs from now on resumed after a wait. */
  firstPassOver(): void {
    this.passing = false
  }

  /** The call's lifetime, made on first use (a child of the caller's that the owner's end ends too). */
  get lifetime(): Lifetime {
    if (this.made) return this.made
    if (!this.owner) return this.caller
    const made = this.caller.child()
    this.unfollow = this.owner.onAbort((reason) => made.abort(reason))
    this.made = made
    if (this.ending) this.disposeOnEnd(this.ending)
    return made
  }

  get signal(): AbortSignal {
    return this.lifetime.signal
  }

  /** `work`, waited for no longer than the call lives (`Lifetime.race` on the call's lifetime). */
  race<T>(work: Promise<T>, fallback?: AbortFallback): Promise<T> {
    return this.lifetime.race(work, fallback)
  }

  /**
   * The lifetime the call's request follows (`LspConnection.request`'s `lifetime`): the call's once
   * made, else the caller's (with `requestOwner`). Two getters, not an object per request.
   */
  get requestLifetime(): Lifetime {
    return this.made ?? this.caller
  }

  /** The second lifetime the call's request follows: the owner's, while the call has made no lifetime of its own that follows it. */
  get requestOwner(): Lifetime | undefined {
    return this.made ? undefined : this.owner
  }

  /**
   * `running` is the call's outcome: the lifetime made for it goes once that settles (the caller's
   * stays). A scope that made none adds no hook (a warm call: no promise for it); one made later,
   * by a step that waits, goes when `running` settles all the same.
   */
  endsWith(running: Promise<unknown>): void {
    this.ending = running
    if (this.made) this.disposeOnEnd(running)
  }

  /** The call is over: the lifetime made for it goes (the caller's stays). */
  dispose(): void {
    this.unfollow?.()
    this.made?.dispose()
  }

  private disposeOnEnd(running: Promise<unknown>): void {
    const end = () => this.dispose()
    running.then(end, end)
  }
}

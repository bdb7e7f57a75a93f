import type { Context } from 'cordis'
import { effectWithTeardown } from './lifetime.ts'

/** What `lazyAgent` closes: undici's `Agent` (its `destroy()` drops every connection). */
export interface DestroyableAgent {
  destroy(): Promise<void>
}

/** An HTTP agent made at its first use; see `lazyAgent`. */
export interface LazyAgent<A extends DestroyableAgent> {
  /** The agent, made at the first call; every call (also concurrent first ones) gets the same one. */
  (): Promise<A>
  /** Destroys the agent if one was made (its making awaited first), once; later uses are refused. */
  close(): Promise<void>
  /** True from the first `close()` on: a request that fails then failed because its owner closed. */
  readonly closed: boolean
}

/**
 * A connection pool (an undici `Agent`) made at its first use and destroyed once with its owner:
 * `owner`'s scope (destroyed, awaited by the host's stop, when the plugin unloads), or the caller's
 * `close()` when `owner` is undefined. undici is most of an HTTP plugin's load time and most runs
 * never send, so nothing is imported or made before the first request. `make` imports undici
 * itself (`import('undici')` from the plugin's package, which depends on it; dsh-core does not)
 * and builds the Agent with the plugin's options. A use after close, and a use whose making was
 * still pending when close came, is refused with `refusal()`, the surface's own coded error (its
 * "aborted: unloaded" code), rather than handed an Agent that is closed or that nothing would
 * close. A making that fails is not kept: the next use makes the Agent again.
 */
export function lazyAgent<A extends DestroyableAgent>(owner: Context | undefined, make: () => Promise<A>, refusal: () => Error): LazyAgent<A> {
  let made: Promise<A> | undefined
  let closing: Promise<void> | undefined
  const making = (): Promise<A> => {
    const attempt = make()
    // Forget a failed making (its caller has the failure), so the next use tries again.
    attempt.catch(() => {
      if (made === attempt) made = undefined
    })
    return attempt
  }
  const get = async (): Promise<A> => {
    if (closing) throw refusal()
    const agent = await (made ??= making())
    if (closing) throw refusal()
    return agent
  }
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const agent = await made?.catch(() => undefined)
      await agent?.destroy()
    })())
  if (owner) effectWithTeardown(owner, () => close)
  return Object.defineProperty(Object.assign(get, { close }), 'closed', { get: () => closing !== undefined, enumerable: true }) as LazyAgent<A>
}

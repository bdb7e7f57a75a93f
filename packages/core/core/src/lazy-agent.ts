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
}

/**
 * A connection pool (an undici `Agent`) made at its first use and destroyed once with its owner:
 * `owner`'s scope (destroyed, awaited by the host's stop, when the plugin unloads), or the caller's
 * `close()` when `owner` is undefined. undici is most of an HTTP plugin's load time and most runs
 * never send, so nothing is imported or made before the first request. `make` imports undici
 * itself (`import('undici')` from the plugin's package, which depends on it; dsh-core does not)
 * and builds the Agent with the plugin's options. A use after close is refused rather than
 * making an Agent that nothing would close.
 */
export function lazyAgent<A extends DestroyableAgent>(owner: Context | undefined, make: () => Promise<A>): LazyAgent<A> {
  let made: Promise<A> | undefined
  let closed: Promise<void> | undefined
  const get = (): Promise<A> => {
    if (closed) return Promise.reject(new Error('the HTTP agent was closed with its owner'))
    return (made ??= make())
  }
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      const agent = await made?.catch(() => undefined)
      await agent?.destroy()
    })())
  if (owner) effectWithTeardown(owner, () => close)
  return Object.assign(get, { close })
}

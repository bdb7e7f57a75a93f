import type { Lifetime } from 'dsh-core'

type Listener = () => void

/**
 * A fetch's `Lifetime` in the shape undici's `request` accepts for `signal` (`aborted`, `reason`,
 * `addEventListener`/`removeEventListener` of `abort`), so a fetch needs no `AbortSignal`: on Node 20
 * making one costs 10–15 µs and each listener on one about as much again in a busy process (with
 * undici's listener, 30–40 µs of a 250 µs loopback fetch; bench/RESULTS.md). Not a mechanism of its
 * own: the lifetime decides when the fetch ends; this only tells undici, through `onAbort`. Where an
 * API insists on a real `AbortSignal` (undici's `body.dump`), the lifetime's own `signal` is used.
 */
export class UndiciSignal {
  private listeners: Map<Listener, () => void> | undefined

  constructor(private readonly lifetime: Lifetime) {}

  get aborted(): boolean {
    return this.lifetime.aborted
  }

  get reason(): unknown {
    return this.lifetime.reason
  }

  addEventListener(_type: 'abort', listener: Listener): void {
    ;(this.listeners ??= new Map()).set(listener, this.lifetime.onAbort(() => listener()))
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    this.listeners?.get(listener)?.()
    this.listeners?.delete(listener)
  }
}

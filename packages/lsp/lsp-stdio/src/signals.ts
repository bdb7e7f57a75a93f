export interface FusedSignal {
  readonly signal: AbortSignal
  /** Detaches from both parents; call it when the work the signal guards has settled. */
  dispose(): void
}

/**
 * A signal that aborts when `lifetime` or `caller` does, with the first one's reason. Not
 * `AbortSignal.any`: Node keeps a dependant entry on each parent for every signal it makes, and
 * drops it only when the parent itself goes, so a provider's lifetime signal would grow by one
 * entry per query for as long as the harness runs. This one leaves nothing behind once disposed.
 */
export function fuseSignals(lifetime: AbortSignal, caller: AbortSignal | undefined): FusedSignal {
  if (!caller) return { signal: lifetime, dispose() {} }
  const controller = new AbortController()
  const parents = [lifetime, caller]
  const onAbort = (event: Event) => {
    detach()
    controller.abort((event.target as AbortSignal).reason)
  }
  const detach = () => {
    for (const parent of parents) parent.removeEventListener('abort', onAbort)
  }
  const aborted = parents.find((parent) => parent.aborted)
  if (aborted) controller.abort(aborted.reason)
  else for (const parent of parents) parent.addEventListener('abort', onAbort)
  return { signal: controller.signal, dispose: detach }
}

import type { ToolProgress } from './types.ts'

/** A call's `exec.progress`, and `close()` for when the call has answered. */
export interface ProgressReporter {
  readonly report: (update: ToolProgress) => void
  close(): void
}

const ignore: ProgressReporter = { report: () => {}, close: () => {} }

/**
 * Forwards a body's progress reports to the caller's listener, as frozen copies with finite
 * numbers only. A listener that throws is reported through `onListenerError` and the body goes on;
 * once closed, late reports are dropped.
 */
export function progressReporter(listener: ((update: ToolProgress) => void) | undefined, onListenerError: (error: unknown) => void): ProgressReporter {
  if (!listener) return ignore
  let open = true
  return {
    report(update) {
      if (!open || !Number.isFinite(update?.progress)) return
      const total = Number.isFinite(update.total) ? update.total : undefined
      const message = typeof update.message === 'string' ? update.message : undefined
      const copy: ToolProgress = Object.freeze({ progress: update.progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) })
      try {
        listener(copy)
      } catch (error) {
        onListenerError(error)
      }
    },
    close() {
      open = false
    },
  }
}

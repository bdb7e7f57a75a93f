import { deadline } from 'dsh-core'

/**
 * Runs one SDK request on a signal of its own that follows `signal`. The SDK never removes the
 * abort listener it adds to a request's signal, so handing it a long-lived one (the row's lifetime)
 * would gather a listener per request.
 */
export async function withOwnSignal<T>(signal: AbortSignal, run: (own: AbortSignal) => Promise<T>): Promise<T> {
  const scope = deadline(signal, 0, 'MCP_TIMEOUT')
  try {
    return await run(scope.signal)
  } finally {
    scope.dispose()
  }
}

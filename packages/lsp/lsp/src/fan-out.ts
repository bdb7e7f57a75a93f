import { setMaxListeners } from 'node:events'
import { errorMessage, HarnessError } from 'dsh-core'
import type { LspUnansweredProvider, LspWorkspaceSymbolsAnswer, LspWorkspaceSymbolsRequest, LspWorkspaceSymbolsResult } from './capabilities.ts'
import type { LspProvider } from './types.ts'

/**
 * Asks each provider at once and merges what they answer, in provider order. A provider that fails
 * is listed (with its code) and makes the answer incomplete; when every one fails, the first
 * failure is thrown as it is. The caller's abort is never swallowed.
 */
export async function askEveryProvider(providers: readonly LspProvider[], request: LspWorkspaceSymbolsRequest, signal: AbortSignal | undefined): Promise<LspWorkspaceSymbolsAnswer> {
  const shared = fannedOut(signal, providers.length)
  const settled = await Promise.allSettled(providers.map(async (provider) => provider.workspaceSymbols!({ query: request.query, workspaceRoot: request.workspaceRoot }, shared)))
  if (signal?.aborted) throw signal.reason
  const answered: { providerId: string; result: LspWorkspaceSymbolsResult }[] = []
  const unanswered: LspUnansweredProvider[] = []
  const failures: unknown[] = []
  settled.forEach((outcome, index) => {
    const providerId = providers[index]!.id
    if (outcome.status === 'fulfilled') answered.push({ providerId, result: outcome.value })
    else {
      failures.push(outcome.reason)
      unanswered.push({ providerId, code: outcome.reason instanceof HarnessError ? outcome.reason.code : 'LSP_PROVIDER_FAILED', message: errorMessage(outcome.reason) })
    }
  })
  if (!answered.length) throw failures[0]
  for (const { result } of answered) if (Array.isArray(result?.unanswered)) unanswered.push(...result.unanswered)
  return {
    kind: 'workspaceSymbols',
    resolvedWorkspaceUri: answered[0]!.result.resolvedWorkspaceUri,
    symbols: answered.flatMap(({ providerId, result }) => (Array.isArray(result?.symbols) ? result.symbols.map((symbol) => ({ ...symbol, providerId })) : [])),
    complete: unanswered.length === 0 && answered.every(({ result }) => result?.complete === true),
    unanswered,
  }
}

/**
 * The caller's signal as the providers share it: each listens on it (lsp-stdio with a child
 * lifetime), and the catalog has eleven of them, one more than Node's listener cap, which printed
 * a MaxListenersExceededWarning on every workspace search. A signal following the caller's
 * (AbortSignal.any: no listener on the caller's) whose cap is the number of providers asked.
 */
function fannedOut(signal: AbortSignal | undefined, providers: number): AbortSignal | undefined {
  if (!signal || providers <= 1) return signal
  const shared = AbortSignal.any([signal])
  // Each provider may add a few of its own (a root's child, a request's), as one caller would.
  setMaxListeners(10 * providers, shared)
  return shared
}

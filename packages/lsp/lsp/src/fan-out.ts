import { errorMessage, HarnessError, Lifetime } from 'dsh-core'
import type { LspCappedProvider, LspUnansweredProvider, LspWorkspaceSymbolsAnswer, LspWorkspaceSymbolsRequest, LspWorkspaceSymbolsResult } from './capabilities.ts'
import type { LspProvider } from './types.ts'

/**
 * Asks each provider at once and merges what they answer, in provider order. A provider that fails
 * is listed (with its code) and makes the answer incomplete; when every one fails, the first
 * failure is thrown as it is. The caller's abort is never swallowed.
 */
export async function askEveryProvider(providers: readonly LspProvider[], request: LspWorkspaceSymbolsRequest, signal: AbortSignal | undefined): Promise<LspWorkspaceSymbolsAnswer> {
  // One lifetime follows the caller's signal for every provider asked, each bound by it as a
  // dependant (a plain set), not as a listener on the caller's signal: the catalog's eleven rows
  // were one past Node's listener cap (a MaxListenersExceededWarning on every workspace search).
  const shared = Lifetime.following(signal)
  let settled: PromiseSettledResult<LspWorkspaceSymbolsResult>[]
  try {
    settled = await Promise.allSettled(providers.map(async (provider) => provider.workspaceSymbols!({ query: request.query, workspaceRoot: request.workspaceRoot }, shared)))
  } finally {
    shared.dispose()
  }
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
  const capped: LspCappedProvider[] = []
  const notes: string[] = []
  for (const { result } of answered) {
    if (Array.isArray(result?.unanswered)) unanswered.push(...result.unanswered)
    if (Array.isArray(result?.capped)) capped.push(...result.capped)
    if (Array.isArray(result?.notes)) notes.push(...result.notes.filter((note) => typeof note === 'string'))
  }
  return {
    kind: 'workspaceSymbols',
    resolvedWorkspaceUri: answered[0]!.result.resolvedWorkspaceUri,
    symbols: answered.flatMap(({ providerId, result }) => (Array.isArray(result?.symbols) ? result.symbols.map((symbol) => ({ ...symbol, providerId })) : [])),
    complete: unanswered.length === 0 && answered.every(({ result }) => result?.complete === true),
    unanswered,
    capped,
    notes,
  }
}


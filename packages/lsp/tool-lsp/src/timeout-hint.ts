import { ToolError, type ToolExecution } from 'dsh-core'

/**
 * `asked`: what the server had not answered, as the model asked it (`findReferences at min.js:1:5`,
 * `the diagnostics of src/a.ts`).
 *
 * The call's error when its budget (`timeoutMs`) ran out while it waited for the language server:
 * still `TOOL_TIMEOUT`, saying what was asked and what to do, where the runtime's own error says
 * only that the call timed out. Measured (bench/RESULTS.md): findReferences on an 810 KB minified
 * one-line file with 60,001 matches took tsserver itself 6–17 s (a bare client, no dsh), of which
 * dsh's own work was 0.4–0.9 s of CPU; on a loaded machine or a larger bundle that passes 60 s.
 */
export function serverTimedOut(asked: string, timeoutMs: number, cause: unknown): ToolError {
  return new ToolError(
    `tool call timed out after ${timeoutMs} ms: the language server had not answered ${asked} by then ` +
      '(it was starting or loading the project, or its own search took that long: a very large file such as a minified or generated bundle, ' +
      'or a symbol used thousands of times). Ask about a more specific symbol or a smaller file, leave generated files out of the server\'s project ' +
      '(for TypeScript, "exclude" in tsconfig.json or jsconfig.json), or raise tool-lsp\'s timeoutMs',
    'TOOL_TIMEOUT',
    { cause },
  )
}

/** `asking`, failing with `serverTimedOut` when the call's budget ran out meanwhile (its other failures as they are). */
export function withTimeoutHint<T>(asking: Promise<T>, exec: ToolExecution, settings: { readonly timeoutMs: number }, asked: () => string): Promise<T> {
  return asking.catch((error: unknown) => {
    throw exec.lifetime.expired ? serverTimedOut(asked(), settings.timeoutMs, error) : error
  })
}

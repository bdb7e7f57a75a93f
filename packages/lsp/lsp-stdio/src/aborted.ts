import { LspError } from 'dsh-lsp'

/**
 * The error for a query whose signal aborted without an Error reason (an Error reason — a
 * TimeoutReason, LSP_DISPOSED — is thrown as it is, so its code survives).
 */
export function queryAborted(reason: unknown): LspError {
  const detail = typeof reason === 'string' && reason ? `: ${reason}` : ''
  return new LspError(`the LSP query was aborted${detail}`, 'LSP_ABORTED')
}

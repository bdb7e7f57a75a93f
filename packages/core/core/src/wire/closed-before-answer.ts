/** What undici reports of a failed socket: its code, and for "other side closed" what the socket had read. */
interface SocketFailure {
  readonly code?: unknown
  readonly socket?: { readonly bytesRead?: unknown }
}

/**
 * Whether an HTTP request failed because its connection closed before any answer, on a connection
 * that had answered before: a server closing a kept, idle connection as it is reused. undici's
 * "other side closed" tells the bytes the connection read (0 on a fresh one); a reset or a broken
 * pipe tells none. Never a timeout or an abort. Reads undici's error itself (`Dispatcher.request`)
 * or fetch's `TypeError` around it (`cause`). Which requests may then be sent again is the caller's
 * decision: one that may act on the server could have run before the close.
 */
export function closedBeforeAnswer(error: unknown): boolean {
  const outer = error as (SocketFailure & { readonly cause?: SocketFailure }) | null | undefined
  const failure = typeof outer?.code === 'string' ? outer : outer?.cause
  switch (failure?.code) {
    case 'UND_ERR_SOCKET': {
      const bytesRead = failure.socket?.bytesRead
      return typeof bytesRead === 'number' && bytesRead > 0
    }
    case 'ECONNRESET':
    case 'EPIPE':
      return true
    default:
      return false
  }
}

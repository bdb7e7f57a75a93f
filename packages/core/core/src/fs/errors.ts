import { errorMessage, HarnessError } from '../errors.ts'

export const FsErrorCode = {
  FS_NOT_FOUND: 'FS_NOT_FOUND',
  FS_NOT_DIRECTORY: 'FS_NOT_DIRECTORY',
  FS_NOT_REGULAR_FILE: 'FS_NOT_REGULAR_FILE',
  FS_NOT_TEXT: 'FS_NOT_TEXT',
  FS_TOO_LARGE: 'FS_TOO_LARGE',
  FS_PERMISSION_DENIED: 'FS_PERMISSION_DENIED',
  FS_OUTSIDE_WORKSPACE: 'FS_OUTSIDE_WORKSPACE',
  FS_IO_ERROR: 'FS_IO_ERROR',
  /** A file to be rewritten no longer holds the text its new text was computed from (or was named twice); nothing was written. */
  FS_CONFLICT: 'FS_CONFLICT',
  /** The caller's signal aborted the call; `cause` is the abort reason. */
  FS_ABORTED: 'FS_ABORTED',
} as const
export type FsErrorCode = (typeof FsErrorCode)[keyof typeof FsErrorCode]

export class FsError extends HarnessError<FsErrorCode> {}

/** Maps a Node system error to a coded FsError about `what`. */
export function fsErrorFrom(error: unknown, what: string): FsError {
  if (error instanceof FsError) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOENT':
      return new FsError(`${what} was not found`, 'FS_NOT_FOUND', { cause: error })
    case 'ENOTDIR':
      return new FsError(`${what}: a parent is not a directory`, 'FS_NOT_DIRECTORY', { cause: error })
    case 'EACCES':
    case 'EPERM':
      return new FsError(`${what}: permission denied`, 'FS_PERMISSION_DENIED', { cause: error })
    case 'EISDIR':
      return new FsError(`${what} is not a regular file`, 'FS_NOT_REGULAR_FILE', { cause: error })
    default:
      return new FsError(`${what}: ${systemProblem(error)}`, 'FS_IO_ERROR', { cause: error })
  }
}

/**
 * A system error's own words without the path Node appends (`ENAMETOOLONG: name too long, realpath
 * '/…'`): the message already names the path once, bounded.
 */
function systemProblem(error: unknown): string {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException
  const text = errorMessage(error)
  if (!code || !syscall) return text
  const at = text.indexOf(`, ${syscall} '`)
  return at < 0 ? text : `${text.slice(0, at)} (${syscall})`
}

/**
 * What a read checks between its steps: whether, and why, its caller gave up. An `AbortSignal`, or
 * anything else that tells it (a dsh-core `Lifetime`, an lsp call's scope): a caller holding a
 * lifetime need not make an AbortController (its `signal`) only for reads that finish in the call.
 */
export interface AbortState {
  readonly aborted: boolean
  readonly reason?: unknown
}

/** Throws `FS_ABORTED` (the abort reason as `cause`, its message in the text) once `signal` has aborted. */
export function throwIfFsAborted(signal: AbortState | undefined, what: string | (() => string)): void {
  if (!signal?.aborted) return
  const reason: unknown = signal.reason
  throw new FsError(`${typeof what === 'string' ? what : what()}: aborted${reason === undefined ? '' : ` (${errorMessage(reason)})`}`, 'FS_ABORTED', { cause: reason })
}

import { errorMessage, FsError } from 'dsh-core'

/**
 * Why a file or directory could not be read, as a rejection reason. `lasting`: the same tree gives
 * the same answer (a permission, a symlink loop), so it may be remembered; otherwise (an I/O error)
 * the next read looks again.
 */
export interface ReadProblem {
  readonly reason: string
  readonly lasting: boolean
}

const LASTING: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  FS_PERMISSION_DENIED: 'permission denied',
  ELOOP: 'a symbolic link loop',
  ENAMETOOLONG: 'the path is too long',
  EISDIR: 'not a regular file',
  FS_NOT_REGULAR_FILE: 'not a regular file',
}

/** The problem a read failure is, from its code or (for a coded `ctx.fs` error) its cause's code. */
export function readProblem(error: unknown): ReadProblem {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && code in LASTING) return { reason: LASTING[code]!, lasting: true }
  }
  return { reason: errorMessage(error), lasting: false }
}

/** A file or directory that is not there (any more): nothing to offer, nothing to reject. */
export const absent = (error: unknown) => error instanceof FsError && (error.code === 'FS_NOT_FOUND' || error.code === 'FS_NOT_DIRECTORY')

import { HarnessError } from '../errors.ts'

export const SubprocessErrorCode = {
  SUBPROCESS_NOT_FOUND: 'SUBPROCESS_NOT_FOUND',
  SUBPROCESS_NOT_EXECUTABLE: 'SUBPROCESS_NOT_EXECUTABLE',
  SUBPROCESS_COMMAND_INVALID: 'SUBPROCESS_COMMAND_INVALID',
  SUBPROCESS_SPAWN_FAILED: 'SUBPROCESS_SPAWN_FAILED',
  SUBPROCESS_SHUT_DOWN: 'SUBPROCESS_SHUT_DOWN',
  /** The spawn's signal was already aborted: nothing was started. */
  SUBPROCESS_ABORTED: 'SUBPROCESS_ABORTED',
  /** A message to a child spawned with `ipc: true` could not be sent: its channel has closed. */
  SUBPROCESS_IPC_CLOSED: 'SUBPROCESS_IPC_CLOSED',
} as const
export type SubprocessErrorCode = (typeof SubprocessErrorCode)[keyof typeof SubprocessErrorCode]

export class SubprocessError extends HarnessError<SubprocessErrorCode> {}

/** The exit codes of `dsh`, documented in the README; scripts route on them. */
export const ExitCode = {
  OK: 0,
  /** `call` returned an error result. */
  TOOL_ERROR: 1,
  /** A usage or boot error. */
  USAGE: 2,
  /** A plugin failed outside any call (an uncaught exception, an unhandled rejection, a promise that never settles). */
  INTERNAL: 70,
  /** The output could not be written: the reader closed the pipe, or the disk is full. */
  OUTPUT: 74,
  /** Interrupted by SIGINT or SIGTERM. */
  INTERRUPTED: 130,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** What every command says when a signal ends the composition's boot (exit 130). */
export const BOOT_INTERRUPTED_LINE = 'dsh: interrupted while starting [PRESET_BOOT_ABORTED]'

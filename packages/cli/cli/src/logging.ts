import { Logger } from 'cordis'
import { terminalTextKeepingColours } from './terminal-text.ts'

/** Boot records kept for after the boot; a composition that logs more says how many were left out. */
const MAX_BOOT_RECORDS = 500

export interface LogRoute {
  /**
   * The boot is over. After a successful one the records it logged go to stderr now; after a failed
   * one they are dropped (the runner reports the failure as one line of its own).
   */
  booted(ok: boolean): void
}

/**
 * Sends cordis logs to stderr (stdout carries results) at the chosen level. Records logged while
 * the composition boots are held until it has booted, so they follow the boot instead of
 * interleaving with it, and a failed boot stays one line.
 */
export function routeLogsToStderr(options: { verbose: boolean; stderr?: NodeJS.WritableStream & { isTTY?: boolean }; env?: NodeJS.ProcessEnv }): LogRoute {
  const stderr = options.stderr ?? process.stderr
  const level = options.verbose ? Logger.DEBUG : Number((options.env ?? process.env).DSH_LOG_LEVEL ?? Logger.WARN)
  Logger.levels.base = Number.isInteger(level) ? level : Logger.WARN
  let held: string[] | undefined = []
  let dropped = 0
  // On a terminal a record's control characters are shown, not obeyed; cordis's own colours stay.
  const write = stderr.isTTY ? (text: string) => stderr.write(`${terminalTextKeepingColours(text)}\n`) : (text: string) => stderr.write(`${text}\n`)
  Logger.targets.splice(0, Logger.targets.length, {
    colors: stderr.isTTY ? 1 : 0,
    print(text: string) {
      if (!held) return write(text)
      if (held.length < MAX_BOOT_RECORDS) held.push(text)
      else dropped++
    },
  })
  return {
    booted(ok) {
      const records = held ?? []
      held = undefined
      if (!ok) return
      for (const text of records) write(text)
      if (dropped) write(`(${dropped} more records logged during the boot are not shown)`)
    },
  }
}

import { Logger } from 'cordis'

/**
 * Sends cordis logs to stderr (stdout carries results). While `quiet()` is true — during boot, whose
 * failures the runner reports as one line of its own — error records from the app are held back.
 */
export function routeLogsToStderr(options: { verbose: boolean; quiet: () => boolean }): void {
  const level = options.verbose ? Logger.DEBUG : Number(process.env.DSH_LOG_LEVEL ?? Logger.WARN)
  Logger.levels.base = Number.isInteger(level) ? level : Logger.WARN
  Logger.targets.splice(0, Logger.targets.length, {
    colors: process.stderr.isTTY ? 1 : 0,
    print(text: string) {
      if (options.quiet()) return
      process.stderr.write(`${text}\n`)
    },
  })
}

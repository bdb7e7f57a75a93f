import { Logger } from 'cordis'
import { terminalText } from './terminal-text.ts'

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
  const write = (text: string) => stderr.write(`${text}\n`)
  const hold = (text: string) => {
    if (!held) return write(text)
    if (held.length < MAX_BOOT_RECORDS) held.push(text)
    else dropped++
  }
  Logger.targets.splice(0, Logger.targets.length, stderr.isTTY ? terminalTarget(hold, coloured(options.env ?? process.env)) : { colors: 0, print: hold })
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

/** Where a record's later lines start: under its content, past `[W] ` (as cordis lays it out). */
const CONTINUATION = `\n${' '.repeat(4)}`

/**
 * A target for a terminal. A record's content is formatted without colours, so every escape in it
 * came from its text (a server's stderr, an error body, a language server's message: it could
 * conceal the rest of the line, paint it black on black or blink) and is shown as `?`. The line is
 * laid out as cordis does, its label in cordis's 16-colour hue for the name. (`%c` / `%o`
 * arguments lose their colour: none of our plugins uses them.)
 */
function terminalTarget(print: (text: string) => void, colours: boolean): Logger.Target {
  const hue: Logger.Target = { colors: 1 }
  return {
    colors: 0,
    record({ type, name, content }) {
      const label = colours ? `\u001b[3${Logger.code(name, hue)}m${terminalText(name)}\u001b[0m` : terminalText(name)
      print(`[${type[0]!.toUpperCase()}] ${label} ${terminalText(content).replace(/\n/g, CONTINUATION)}`)
    },
  }
}

/** Whether a terminal gets colours: not when it says it has none (`TERM=dumb`) or the user asked for none (`NO_COLOR`, no-color.org). */
function coloured(env: NodeJS.ProcessEnv): boolean {
  return env.TERM !== 'dumb' && !env.NO_COLOR
}

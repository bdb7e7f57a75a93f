import { sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'cordis'
import { errorMessage, oneLine } from '../errors.ts'
import { HOST_PACKAGE, packageRoot } from './host-package.ts'
import type { LoadedRow } from './load.ts'

/** Where a row's code lives: its package's directory, or the plugin file itself when it is in no package of its own. */
interface Home {
  readonly row: LoadedRow
  readonly path: string
  readonly directory: boolean
  /** A row of the package every host loads (dsh-core): blamed only when no other row's code is on the stack. */
  readonly host: boolean
}

/**
 * The row whose plugin code raised `error`: the first frame of its stack that lies in a row's
 * package (or plugin file) names it. Frames in dsh-core itself (the runtime that called the plugin)
 * count only when no plugin's code is on the stack. Undefined for a value without a stack, or a stack
 * that passes through no row's code.
 */
export function strayOrigin(rows: readonly LoadedRow[], error: unknown): LoadedRow | undefined {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined
  if (!stack) return undefined
  const homes = rows.map(homeOf)
  const files = stackFiles(stack)
  const owner = (guest: boolean) => {
    for (const file of files) {
      const home = homes.find((candidate) => candidate.host !== guest && contains(candidate, file))
      if (home) return home.row
    }
    return undefined
  }
  return owner(true) ?? owner(false)
}

/**
 * While a long-lived host runs, a promise rejection nobody handles is logged, naming the row whose
 * code raised it, instead of ending the process (Node's default): one plugin's stray promise must not
 * end every session. Returns what removes the listener (the host's `stop()`).
 */
export function containStrayRejections(app: Context, rows: readonly LoadedRow[]): () => void {
  const logger = app.logger('host')
  const listener = (reason: unknown) => logger.error(describeStray('unhandled rejection', rows, reason))
  process.on('unhandledRejection', listener)
  return () => {
    process.off('unhandledRejection', listener)
  }
}

/** `unhandled rejection in row "x" (./x.mjs) in preset.yml: message` (or `… with no plugin on its stack: …`). */
export function describeStray(what: string, rows: readonly LoadedRow[], error: unknown): string {
  const origin = strayOrigin(rows, error)
  return `${what} ${origin ? `in ${origin.label}` : 'with no plugin on its stack'}: ${oneLine(errorMessage(error))}`
}

function homeOf(row: LoadedRow): Home {
  // A row naming a file (a preset's ./plugin.mjs) owns only that file; a package owns its directory.
  const root = isPackageName(row.row.name) ? packageRoot(row.path) : undefined
  return root ? { row, path: root, directory: true, host: root === HOST_PACKAGE } : { row, path: row.path, directory: false, host: false }
}

function contains(home: Home, file: string): boolean {
  return home.directory ? file.startsWith(home.path + sep) : file === home.path
}

function isPackageName(name: string): boolean {
  return !name.startsWith('.') && !name.startsWith('/')
}

/** The files of a V8 stack's frames, top first (`at f (file:///a.mjs:1:2)`, `at /a.js:1:2`, `at async f (…)`). */
function stackFiles(stack: string): string[] {
  const files: string[] = []
  for (const line of stack.split('\n')) {
    const frame = line.trim()
    if (!frame.startsWith('at ')) continue
    const location = (/\(([^()]*)\)$/.exec(frame)?.[1] ?? frame.slice(3).replace(/^async /, '')).replace(/:\d+:\d+$/, '')
    if (location.startsWith('file://')) {
      try {
        files.push(fileURLToPath(location.replace(/\?.*$/, '')))
      } catch {
        // not a file we can compare
      }
    } else if (location.startsWith('/')) {
      files.push(location)
    }
  }
  return files
}

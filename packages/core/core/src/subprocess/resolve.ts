import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path'
import { throwIfAborted } from '../abort.ts'
import { SubprocessError } from './errors.ts'

/** Every `node_modules/.bin` from `dir` up to the filesystem root, nearest first. */
export function binDirsAbove(dir: string): string[] {
  const dirs: string[] = []
  for (let current = dir; ; current = dirname(current)) {
    dirs.push(join(current, 'node_modules', '.bin'))
    if (dirname(current) === current) return dirs
  }
}

/**
 * The absolute entries of a PATH value, in order. Relative entries (`.`, `./node_modules/.bin`, an
 * empty entry, which means the current directory) are dropped: they name a directory of whatever
 * workspace the child runs in, so a file planted there would run with our privileges.
 */
export function absolutePathEntries(path: string | undefined): string[] {
  return (path ?? '').split(delimiter).filter((entry) => entry !== '' && isAbsolute(entry))
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export interface ResolveOptions {
  /** Searched first: this installation's `node_modules/.bin` chain, where the pinned servers live. */
  readonly installation: readonly string[]
  /** The PATH to search after it (already scrubbed and merged with explicit env); relative entries are skipped. */
  readonly path: string | undefined
  readonly signal?: AbortSignal | undefined
}

/**
 * Absolute commands are verified; bare names are searched in the installation's bin directories,
 * then the absolute PATH entries; relative paths with a separator are refused. The result is
 * always absolute, so the spawn never searches again with the child's cwd in play.
 */
export async function resolveCommand(command: string, options: ResolveOptions): Promise<string> {
  throwIfAborted(options.signal)
  if (!command) throw new SubprocessError('command must be a non-empty string', 'SUBPROCESS_COMMAND_INVALID')
  if (isAbsolute(command)) {
    if (await isExecutableFile(command)) return command
    throw new SubprocessError(`${command} is not an executable file`, 'SUBPROCESS_NOT_EXECUTABLE')
  }
  if (command.includes(sep) || command.includes('/')) {
    throw new SubprocessError(`command "${command}" must be a bare name or an absolute path`, 'SUBPROCESS_COMMAND_INVALID')
  }
  for (const dir of [...options.installation, ...absolutePathEntries(options.path)]) {
    throwIfAborted(options.signal)
    const candidate = join(dir, command)
    if (await isExecutableFile(candidate)) return candidate
  }
  throw new SubprocessError(`\`${command}\` not found on PATH or in node_modules/.bin`, 'SUBPROCESS_NOT_FOUND')
}

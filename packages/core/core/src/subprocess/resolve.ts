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
  /** The PATH to search (already scrubbed and merged with explicit env). */
  readonly path: string | undefined
  /** Searched before PATH: the workspace's own `node_modules/.bin` chain. */
  readonly before: readonly string[]
  /** Searched after PATH: the installation's `node_modules/.bin` chain. */
  readonly after: readonly string[]
  readonly signal?: AbortSignal | undefined
}

/** Absolute commands are verified; bare names are searched; relative paths with a separator are refused. */
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
  const pathDirs = (options.path ?? '').split(delimiter).filter(Boolean)
  for (const dir of [...options.before, ...pathDirs, ...options.after]) {
    throwIfAborted(options.signal)
    const candidate = join(dir, command)
    if (await isExecutableFile(candidate)) return candidate
  }
  throw new SubprocessError(`${command} was not found on PATH or in node_modules/.bin`, 'SUBPROCESS_NOT_FOUND')
}

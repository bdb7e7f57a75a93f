import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { errorMessage, HarnessError } from './errors.ts'

/**
 * The user's home directory: `$HOME`, else the user's passwd entry (`os.homedir()`). A process with
 * neither (a container running an arbitrary uid without HOME) gets `HOME_UNKNOWN` saying what to set,
 * instead of libuv's `uv_os_homedir returned ENOENT`; so does an empty or relative HOME, which would
 * put the user's files (trusted.json among them) in whatever directory dsh runs in.
 */
export function homeDirectory(): string {
  const found = findHomeDirectory()
  if ('home' in found) return found.home
  throw new HarnessError(`no home directory: ${found.reason}; set HOME, or DSH_HOME for dsh's own files`, 'HOME_UNKNOWN', found.cause === undefined ? undefined : { cause: found.cause })
}

/**
 * The home directory as `homeDirectory()` finds it, or why there is none: for a plugin that can do
 * without it (skill-fs's user roots). `env` is the host's environment (a test's, an embedder's): its
 * HOME when set and not blank, else the OS's answer (this process's HOME, else the passwd entry). A
 * relative HOME is no home: resolved, it would make the directory dsh runs in (a repository) the user's.
 */
export function findHomeDirectory(env: NodeJS.ProcessEnv = process.env): { readonly home: string } | { readonly reason: string; readonly cause?: unknown } {
  const given = env.HOME
  let home: string
  if (given?.trim()) home = given
  else {
    try {
      home = homedir()
    } catch (error) {
      return { reason: `HOME is unset and user ${process.getuid?.() ?? '?'} has no passwd entry (${errorMessage(error)})`, cause: error }
    }
  }
  if (!isAbsolute(home)) return { reason: `HOME is ${JSON.stringify(home)}, not an absolute path` }
  return { home }
}

/**
 * The user's dsh directory: `$DSH_HOME`, else `~/.dsh`. Everything dsh keeps for the user lives there
 * (trusted.json among them). A `DSH_HOME` that is not an absolute path is `DSH_HOME_INVALID`, not
 * resolved: it would name a different directory wherever dsh runs, so a repository could bring the
 * trust store that decides whether it is trusted.
 */
export function dshHome(env: NodeJS.ProcessEnv = process.env): string {
  return givenDshHome(env) ?? join(homeDirectory(), '.dsh')
}

/** `$DSH_HOME` when it is set (not empty), checked to be absolute; undefined when it is not set. */
export function givenDshHome(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.DSH_HOME
  if (!given) return undefined
  if (!isAbsolute(given)) {
    throw new HarnessError(`DSH_HOME is ${JSON.stringify(given)}, not an absolute path: a relative one would mean another directory wherever dsh runs; set it to an absolute path`, 'DSH_HOME_INVALID')
  }
  return given
}

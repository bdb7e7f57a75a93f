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
  let home: string
  try {
    home = homedir()
  } catch (error) {
    throw new HarnessError(`no home directory: HOME is unset and user ${process.getuid?.() ?? '?'} has no passwd entry (${errorMessage(error)}); set HOME, or DSH_HOME for dsh's own files`, 'HOME_UNKNOWN', { cause: error })
  }
  if (!isAbsolute(home)) throw new HarnessError(`no home directory: HOME is ${JSON.stringify(home)}, not an absolute path; set HOME, or DSH_HOME for dsh's own files`, 'HOME_UNKNOWN')
  return home
}

/** The user's dsh directory: `$DSH_HOME`, else `~/.dsh`. Everything dsh keeps for the user lives there. */
export function dshHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DSH_HOME || join(homeDirectory(), '.dsh')
}

import { homedir } from 'node:os'
import { join } from 'node:path'

/** The user's dsh directory: `$DSH_HOME`, else `~/.dsh`. Everything dsh keeps for the user lives there. */
export function dshHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DSH_HOME || join(homedir(), '.dsh')
}

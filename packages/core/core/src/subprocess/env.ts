import { delimiter } from 'node:path'
import { absolutePathEntries } from './resolve.ts'

/**
 * The child environment policy, one table in docs/architecture.md. A variable is withheld from
 * children when its name looks like a credential, when its value is a URL carrying a user or
 * password, or when it is one of ours (`DSH_*`). Names are matched case-insensitively.
 */
const SECRET_NAME_PART = /KEY|SECRET|TOKEN|PASS|AUTH|CRED|COOKIE|SESSION|BEARER/
/** `PAT` only as a whole word (`GITHUB_PAT`), so `PATH` and `PATTERN` pass. */
const SECRET_NAME_WORD = /(?:^|[^A-Z])PAT(?:[^A-Z]|$)/
/** `scheme://user@` or `scheme://user:password@` anywhere in the value. */
const URL_WITH_USERINFO = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i

export type ScrubReason = 'secret-looking name' | 'credentials in a URL' | 'dsh variable'

/** Why `name=value` never reaches a child unless a spawn or `passEnv` names it; `undefined` when it does. */
export function scrubReason(name: string, value = ''): ScrubReason | undefined {
  const upper = name.toUpperCase()
  if (upper.startsWith('DSH_')) return 'dsh variable'
  if (SECRET_NAME_PART.test(upper) || SECRET_NAME_WORD.test(upper)) return 'secret-looking name'
  if (URL_WITH_USERINFO.test(value)) return 'credentials in a URL'
  return undefined
}

/** True for a variable name that never reaches a child unless a spawn names it explicitly. */
export function isScrubbedName(name: string): boolean {
  return scrubReason(name) !== undefined
}

/**
 * The environment every child starts from: the parent's minus what `scrubReason` withholds (unless
 * its name is in `passEnv`, matched case-insensitively as the scrub is), then `explicit` on top (a
 * string sets, `undefined` removes), and `PATH` without its relative entries.
 */
export function scrubbedEnv(
  explicit: Readonly<Record<string, string | undefined>> = {},
  parent: NodeJS.ProcessEnv = process.env,
  passEnv: readonly string[] = [],
): Record<string, string> {
  const passed = new Set(passEnv.map((name) => name.toUpperCase()))
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && (passed.has(name.toUpperCase()) || scrubReason(name, value) === undefined)) env[name] = value
  }
  for (const [name, value] of Object.entries(explicit)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  // A child runs in the workspace it serves: a relative entry (`.`, `node_modules/.bin`, an empty
  // one) would find a file the repository planted there when the child looks a name up itself, as a
  // language server's `#!/usr/bin/env node` does, or pyright running `python3`.
  if (env.PATH !== undefined) {
    const path = absolutePathEntries(env.PATH)
    // An empty PATH is searched as the current directory: no PATH at all is the system default.
    if (path.length) env.PATH = path.join(delimiter)
    else delete env.PATH
  }
  return env
}

/** A config's `env` (a string sets a variable, `null` removes an inherited one) as a spawn's `env`. */
export function envFromConfig(env: Readonly<Record<string, string | null>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value ?? undefined]))
}

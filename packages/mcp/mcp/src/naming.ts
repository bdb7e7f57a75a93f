import { createHash } from 'node:crypto'

/** The longest function name models accept. */
export const MAX_TOOL_NAME = 64
const HASH_CHARS = 12
const VISIBLE_CHARS = MAX_TOOL_NAME - HASH_CHARS - 1
/** Per UTF-16 code unit, like the reference (no `u` flag): one astral character becomes two `_`. */
const UNSAFE = /[^A-Za-z0-9_-]/g

/** Letters, digits, `_` and `-`, 1 to 32 of them. */
export const SERVER_NAME_CHARACTERS = /^[A-Za-z0-9_-]{1,32}$/

/**
 * Why `name` could make a public name another server's name could make too, if it could. `__`
 * separates the parts; a trailing `_` would let `a_` + `x` and `a` + `_x` both be `mcp__a___x`.
 * Without either, the first `__` after `mcp__` always ends the server name: a clean name has one owner.
 */
export function sharedNameProblem(name: string): string | undefined {
  if (name.includes('__')) return 'must not contain "__" (it separates the parts of a tool name)'
  if (name.endsWith('_')) return `must not end with "_" (server "a_" with tool "x" and server "a" with tool "_x" would share mcp__a___x)`
  return undefined
}

/**
 * The model-visible name of a server's tool: `mcp__<server>__<raw>`. When a character had to become
 * `_` or the name is longer than 64, it is cut to 51 characters plus `_` and 12 hex characters of
 * SHA-256 over `server \0 raw` (UTF-8), so every (server, raw name) pair keeps a name of its own.
 * A pure function: the same inputs give the same name whatever else is connected. The raw name,
 * never this one, goes on the wire.
 *
 * `round` ≥ 1 gives the hashed form over `server \0 raw \0 round` instead: the next name to try for
 * a hashed tool whose name another tool of the same list holds (discovery.ts `assignNames`).
 */
export function publicToolName(serverName: string, rawName: string, round = 0): string {
  const joined = `mcp__${serverName}__${rawName}`
  const normalised = joined.replace(UNSAFE, '_')
  if (round === 0 && normalised === joined && joined.length <= MAX_TOOL_NAME) return joined
  const hash = createHash('sha256')
    .update(round === 0 ? `${serverName}\0${rawName}` : `${serverName}\0${rawName}\0${round}`, 'utf8')
    .digest('hex')
    .slice(0, HASH_CHARS)
  return `${normalised.slice(0, VISIBLE_CHARS)}_${hash}`
}

/** Whether `publicName` is the raw name as it is (`mcp__<server>__<raw>`), not a hashed form. */
export function isCleanName(serverName: string, rawName: string, publicName: string): boolean {
  return publicName === `mcp__${serverName}__${rawName}`
}

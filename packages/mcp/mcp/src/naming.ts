import { createHash } from 'node:crypto'

/** The longest function name models accept. */
export const MAX_TOOL_NAME = 64
const HASH_CHARS = 12
const VISIBLE_CHARS = MAX_TOOL_NAME - HASH_CHARS - 1
/** Per UTF-16 code unit, like the reference (no `u` flag): one astral character becomes two `_`. */
const UNSAFE = /[^A-Za-z0-9_-]/g

/**
 * The model-visible name of a server's tool: `mcp__<server>__<raw>`. When a character had to become
 * `_` or the name is longer than 64, it is cut to 51 characters plus `_` and 12 hex characters of
 * SHA-256 over `server \0 raw` (UTF-8), so every (server, raw name) pair keeps a name of its own.
 * A pure function: the same inputs give the same name whatever else is connected. The raw name,
 * never this one, goes on the wire.
 */
export function publicToolName(serverName: string, rawName: string): string {
  const joined = `mcp__${serverName}__${rawName}`
  const normalised = joined.replace(UNSAFE, '_')
  if (normalised === joined && joined.length <= MAX_TOOL_NAME) return joined
  const hash = createHash('sha256').update(`${serverName}\0${rawName}`, 'utf8').digest('hex').slice(0, HASH_CHARS)
  return `${normalised.slice(0, VISIBLE_CHARS)}_${hash}`
}

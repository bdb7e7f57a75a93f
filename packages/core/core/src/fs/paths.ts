import { resolve, sep } from 'node:path'

// Path arithmetic on the warm paths of a call. A diagnostics call after an edit names its file
// relative to a canonical workspace and checks containment a few times: `path.resolve` and
// `path.relative` normalise every argument first, which was a sixth of that call's instructions
// (bench/RESULTS.md, seventeenth session). Plain spellings are handled as strings here, with the
// answers `node:path` gives; every other spelling goes to `node:path`.

const SLASH = 0x2f
const DOT = 0x2e

/**
 * An absolute POSIX path that `path.resolve` leaves as it is and whose every prefix ending before a
 * `/` names an ancestor: no empty, `.` or `..` name (nor any name starting with a dot, which the
 * check does not tell apart), no trailing `/` but the root's.
 */
export function plainAbsolute(path: string): boolean {
  if (sep !== '/' || path.charCodeAt(0) !== SLASH) return false
  const last = path.length - 1
  return (last === 0 || path.charCodeAt(last) !== SLASH) && plainParts(path)
}

/**
 * No `/` followed by `/` or `.`. One pass over the character codes: two `includes` scans per path
 * cost more than `path.relative` saved (callgrind, seventeenth session).
 */
function plainParts(path: string): boolean {
  const last = path.length - 1
  for (let i = 0; i < last; i++) {
    if (path.charCodeAt(i) !== SLASH) continue
    const next = path.charCodeAt(i + 1)
    if (next === SLASH || next === DOT) return false
  }
  return true
}

/** A relative POSIX name with no empty, `.` or `..` part (nor a part starting with a dot) and no trailing `/`. */
function plainRelative(path: string): boolean {
  const first = path.charCodeAt(0)
  return path.length > 0 && first !== SLASH && first !== DOT && path.charCodeAt(path.length - 1) !== SLASH && plainParts(path)
}

/** `path.resolve(base, path)`: a plain relative name below a plain absolute base joined as a string. */
export function resolvedIn(base: string, path: string): string {
  if (plainRelative(path) && plainAbsolute(base)) return base.length === 1 ? `/${path}` : `${base}/${path}`
  return resolve(base, path)
}

/** True when `child` is `parent` or below it, both canonical (`FileSystem.contains`). */
export function plainContains(parent: string, child: string): boolean | undefined {
  if (!plainAbsolute(parent) || !plainAbsolute(child)) return undefined
  return child === parent || (child.startsWith(parent) && (parent.length === 1 || child.charCodeAt(parent.length) === SLASH))
}

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
  return sep === '/' && path.charCodeAt(0) === SLASH && (path.length === 1 || path.charCodeAt(path.length - 1) !== SLASH) && plainParts(path)
}

/**
 * No `/` followed by `/` or `.`. Two `includes` scans, not a loop over the character codes: a path
 * just joined is a cons string, which `includes` flattens once, where each `charCodeAt` of a loop
 * walks it (the loop cost 1.5 times as many instructions; callgrind, seventeenth session).
 */
function plainParts(path: string): boolean {
  return !path.includes('//') && !path.includes('/.')
}

/** A relative POSIX name with no empty, `.` or `..` part (nor a part starting with a dot) and no trailing `/`. */
function plainRelative(path: string): boolean {
  const first = path.charCodeAt(0)
  return path.length > 0 && first !== SLASH && first !== DOT && path.charCodeAt(path.length - 1) !== SLASH && plainParts(path)
}

/**
 * `path.resolve(base, path)`: a plain relative name below a plain absolute base joined as a string;
 * a plain absolute path is itself (what `path.resolve` answers for it, whatever the base). A writer
 * names its file absolute, and a diagnostics call after its edit resolves that name three times.
 */
export function resolvedIn(base: string, path: string): string {
  if (path.charCodeAt(0) === SLASH) return plainAbsolute(path) ? path : resolve(base, path)
  if (plainRelative(path) && plainAbsolute(base)) return base.length === 1 ? `/${path}` : `${base}/${path}`
  return resolve(base, path)
}

// The last pair `plainContains` answered: one call asks about the same file in its workspace several
// times (the notice, each proof, the root finder), each time with a path joined anew. A pure function
// of the two strings, so the answer stands while both are equal.
let lastParent = ''
let lastChild = ''
let lastAnswer: boolean | undefined

/** True when `child` is `parent` or below it, both canonical (`FileSystem.contains`); undefined for a spelling that is not plain. */
export function plainContains(parent: string, child: string): boolean | undefined {
  if (child === lastChild && parent === lastParent) return lastAnswer
  const answer = !plainAbsolute(parent) || !plainAbsolute(child) ? undefined : child === parent || (child.startsWith(parent) && (parent.length === 1 || child.charCodeAt(parent.length) === SLASH))
  lastParent = parent
  lastChild = child
  lastAnswer = answer
  return answer
}

// The baselines beside this script: YAML with a `client:` and a `server:` list of scenario names
// expected to fail, each with a comment saying why. Read as lines, so no YAML parser is installed.
import { readFileSync } from 'node:fs'

/** The names listed under `<section>:` in the baseline file. */
export function expectedFailures(path, section) {
  const names = new Set()
  let inside = false
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith(`${section}:`)) inside = true
    else if (/^\S/.test(line) && !line.startsWith('#')) inside = false
    const name = /^\s+-\s+([^\s#]+)/.exec(line)?.[1]
    if (inside && name) names.add(name)
  }
  return names
}

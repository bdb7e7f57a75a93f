import { errorMessage, isRecord } from 'dsh-core'
import YAML, { isScalar } from 'yaml'
import type { ParsedFrontmatter } from './frontmatter.ts'

// The YAML side of a skill file, in a module of its own: the yaml package is the largest code a
// `dsh` start would compile (≈ 270 KB bundled), and a catalog with no skill file to parse (no
// skills, or every one already parsed) never needs it. `frontmatterParser()` imports it on the
// first frontmatter to parse (issue 27 item 5).

// YAML 1.2 core schema: a date stays a string, `yes` stays a string. Errors are located below
// against the file, so the library's pretty-printing (a line counter on every parse) is not needed;
// warnings are not printed.
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true, logLevel: 'error' } as const

/** The frontmatter starts on the file's second line. */
const FIRST_LINE = 2

/** What `parseFrontmatter` (frontmatter.ts) answers, synchronously, for a caller holding this module. */
export function parseFrontmatter(yaml: string): ParsedFrontmatter {
  const stray = /^---/m.exec(yaml)
  if (stray) return { ok: false, reason: `frontmatter line ${lineOf(yaml, stray.index)} starts with ---, which would be read as a delimiter; quote or remove it` }
  const first = parseYaml(yaml)
  if (first.ok) return { ...first, repaired: [] }
  const quoted = quoteColonValues(yaml)
  if (!quoted) return first
  const second = parseYaml(quoted.yaml)
  return second.ok ? { ...second, repaired: quoted.keys } : first
}

function parseYaml(yaml: string): { ok: true; data: unknown } | { ok: false; reason: string } {
  const document = YAML.parseDocument(yaml, PARSE_OPTIONS)
  const [error] = document.errors
  if (error) {
    const at = error.pos[0]
    const column = at - (at > 0 ? yaml.lastIndexOf('\n', at - 1) : -1)
    const where = at >= 0 ? ` at line ${lineOf(yaml, at)}, column ${column}` : ''
    return { ok: false, reason: `the frontmatter is not valid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}${where}` }
  }
  let data: unknown
  try {
    data = document.toJS()
  } catch (error) {
    // Resolving aliases can still fail (too many, or one that points nowhere).
    return { ok: false, reason: `the frontmatter is not valid YAML: ${errorMessage(error)}` }
  }
  // `name: 2048` is a skill name written without quotes; YAML reads it as a number (and `0755` as 755).
  if (isRecord(data) && typeof data.name === 'number') {
    const node = document.get('name', true)
    if (isScalar(node) && typeof node.source === 'string' && /^[0-9]+$/.test(node.source)) data.name = node.source
  }
  return { ok: true, data }
}

/** A top-level `key: value` line whose plain value holds `: ` (a quoted, flow, block, tagged or anchored value is left alone). */
const COLON_VALUE = /^([A-Za-z0-9_-]+):[ \t]+([^\s"'[{|>!&*#%@`][^\n]*: [^\n]*)$/gm

/** `yaml` with each such value double-quoted, and their keys; undefined when there is none. */
function quoteColonValues(yaml: string): { yaml: string; keys: string[] } | undefined {
  const keys: string[] = []
  const quoted = yaml.replace(COLON_VALUE, (_line, key: string, value: string) => {
    keys.push(key)
    return `${key}: ${JSON.stringify(value.trimEnd())}`
  })
  return keys.length ? { yaml: quoted, keys } : undefined
}

/** The file line of an offset into the frontmatter. */
function lineOf(yaml: string, offset: number): number {
  let line = FIRST_LINE
  for (let at = yaml.indexOf('\n'); at !== -1 && at < offset; at = yaml.indexOf('\n', at + 1)) line++
  return line
}

import { errorMessage, isRecord } from 'dsh-core'
import YAML, { isScalar } from 'yaml'

/** A SKILL.md split at its frontmatter: the YAML between the delimiter lines, and the body after. */
export type Split = { readonly ok: true; readonly yaml: string; readonly body: string } | { readonly ok: false; readonly reason: string }

// A delimiter line is `---`, then only spaces or tabs (editors leave them), then one `\r` allowed
// before its newline (or the end of the file).
const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /\n---[ \t]*\r?(?:\n|$)/g
/** A first line read only in part that may still become an opening delimiter. */
const OPEN_SO_FAR = /^(?:-{0,3}|---[ \t]*\r?)$/
const BOM = '\ufeff'

/**
 * Finds the frontmatter by the exact-line rule: the first line is `---`, and the frontmatter ends at
 * the next line that is `---` (trailing spaces and tabs allowed). A YAML library handed the whole
 * file would accept an unterminated block, close at `----`, and take `---yaml`; this scan runs first
 * so none of that reaches the parser. With `final` false, `text` is the start of a longer file and
 * undefined means "read more". A frontmatter whose closing line ends past `maxBytes` bytes is refused,
 * whether discovery or a load read it.
 */
export function splitFrontmatter(text: string, final: boolean, maxBytes: number): Split | undefined {
  if (!OPEN.test(text)) {
    if (!final && OPEN_SO_FAR.test(text)) return undefined
    // Decoders usually drop a byte-order mark silently; callers that keep it get this reason.
    if (text.startsWith(BOM)) return { ok: false, reason: 'the file starts with a UTF-8 byte-order mark; save it without one (the first line must be exactly ---)' }
    return { ok: false, reason: 'no frontmatter: the first line must be exactly ---' }
  }
  const open = text.indexOf('\n')
  CLOSE.lastIndex = open
  for (let match = CLOSE.exec(text); match; match = CLOSE.exec(text)) {
    const end = match.index + match[0].length
    // `---` at the end of a partial read may be the start of `----`.
    if (!final && end === text.length && !match[0].endsWith('\n')) return undefined
    if (Buffer.byteLength(text.slice(0, end)) > maxBytes) return notClosedWithin(maxBytes)
    // CRLF files: the line breaks become LF, so the `\r` before the closing delimiter does not end
    // the last value (`description: "q"\r` is not valid YAML; line numbers stay the same).
    return { ok: true, yaml: text.slice(open + 1, match.index).replace(/\r\n/g, '\n').replace(/\r$/, ''), body: text.slice(end) }
  }
  if (!final) return undefined
  return { ok: false, reason: 'the frontmatter is not closed: no later line is exactly ---' }
}

export function notClosedWithin(maxBytes: number): Split {
  return { ok: false, reason: `no frontmatter closed within ${maxBytes} bytes` }
}

// YAML 1.2 core schema: a date stays a string, `yes` stays a string. Errors are located below
// against the file, so the library's pretty-printing (a line counter on every parse) is not needed;
// warnings are not printed.
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true, logLevel: 'error' } as const

/** The frontmatter starts on the file's second line. */
const FIRST_LINE = 2

/**
 * Parses the frontmatter YAML (already cut out by `splitFrontmatter`) with the `yaml` package. A
 * parse failure is a reason naming the line and column in the file, never a throw. A frontmatter
 * that fails only because a top-level value holds an unquoted `: ` (`description: Use when: …`, which
 * YAML reads as a nested mapping) is read again with those values quoted, as the Agent Skills client
 * guide suggests, and `repaired` names their keys.
 */
export function parseFrontmatter(yaml: string): { ok: true; data: unknown; repaired: readonly string[] } | { ok: false; reason: string } {
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

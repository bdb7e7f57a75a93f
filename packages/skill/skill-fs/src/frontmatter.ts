import YAML, { YAMLParseError } from 'yaml'

/** A SKILL.md split at its frontmatter: the YAML between the delimiter lines, and the body after. */
export type Split = { readonly ok: true; readonly yaml: string; readonly body: string } | { readonly ok: false; readonly reason: string }

const OPEN = /^---\r?\n/
// A closing line is exactly `---` (one `\r` allowed before its newline, or the end of the file).
const CLOSE = /\n---\r?(?:\n|$)/g
const BOM = '\ufeff'

/**
 * Finds the frontmatter by the exact-line rule: the first line is `---`, and the frontmatter ends at
 * the next line that is exactly `---`. A YAML library handed the whole file would accept an
 * unterminated block, close at `----`, and take `---yaml`; this scan runs first so none of that
 * reaches the parser. With `final` false, `text` is the start of a longer file and undefined means
 * "read more".
 */
export function splitFrontmatter(text: string, final = true): Split | undefined {
  if (!OPEN.test(text)) {
    if (!final && text.length < 5 && '---\r\n'.startsWith(text)) return undefined
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
    return { ok: true, yaml: text.slice(open + 1, match.index), body: text.slice(end) }
  }
  if (!final) return undefined
  return { ok: false, reason: 'the frontmatter is not closed: no later line is exactly ---' }
}

// YAML 1.2 core schema: a date stays a string, `yes` stays a string. Errors are located below
// against the file, so the library's pretty-printing (a line counter on every parse) is not needed;
// warnings are not printed.
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true, logLevel: 'error' } as const

/** The frontmatter starts on the file's second line. */
const FIRST_LINE = 2

/**
 * Parses the frontmatter YAML (already cut out by `splitFrontmatter`) with the `yaml` package. A
 * parse failure is a reason naming the line and column in the file, never a throw.
 */
export function parseFrontmatter(yaml: string): { ok: true; data: unknown } | { ok: false; reason: string } {
  const stray = /^---/m.exec(yaml)
  if (stray) return { ok: false, reason: `frontmatter line ${lineOf(yaml, stray.index)} starts with ---, which would be read as a delimiter; quote or remove it` }
  try {
    return { ok: true, data: YAML.parse(yaml, PARSE_OPTIONS) as unknown }
  } catch (error) {
    if (!(error instanceof YAMLParseError)) return { ok: false, reason: `the frontmatter is not valid YAML: ${String(error)}` }
    const at = error.pos[0]
    const column = at - (at > 0 ? yaml.lastIndexOf('\n', at - 1) : -1)
    const where = at >= 0 ? ` at line ${lineOf(yaml, at)}, column ${column}` : ''
    return { ok: false, reason: `the frontmatter is not valid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}${where}` }
  }
}

/** The file line of an offset into the frontmatter. */
function lineOf(yaml: string, offset: number): number {
  let line = FIRST_LINE
  for (let at = yaml.indexOf('\n'); at !== -1 && at < offset; at = yaml.indexOf('\n', at + 1)) line++
  return line
}

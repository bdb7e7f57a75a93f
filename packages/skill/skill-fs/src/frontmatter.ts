
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

export type ParsedFrontmatter = { ok: true; data: unknown; repaired: readonly string[] } | { ok: false; reason: string }
export type FrontmatterParser = (yaml: string) => ParsedFrontmatter

let parser: Promise<FrontmatterParser> | undefined

/**
 * The frontmatter parser (`parseFrontmatter`, synchronous), loaded with the yaml package on the first
 * call: a scan reads its files first and asks for it only when one of them has to be parsed.
 */
export function frontmatterParser(): Promise<FrontmatterParser> {
  return (parser ??= import('./frontmatter-yaml.ts').then((module) => module.parseFrontmatter))
}

/**
 * Parses the frontmatter YAML (already cut out by `splitFrontmatter`) with the `yaml` package. A
 * parse failure is a reason naming the line and column in the file, never a throw. A frontmatter
 * that fails only because a top-level value holds an unquoted `: ` (`description: Use when: …`, which
 * YAML reads as a nested mapping) is read again with those values quoted, as the Agent Skills client
 * guide suggests, and `repaired` names their keys.
 */
export async function parseFrontmatter(yaml: string): Promise<ParsedFrontmatter> {
  return (await frontmatterParser())(yaml)
}

import matter from 'gray-matter'
import YAML from 'yaml'

/** A SKILL.md split at its frontmatter: the YAML between the delimiter lines, and the body after. */
export type Split = { readonly ok: true; readonly yaml: string; readonly body: string } | { readonly ok: false; readonly reason: string }

const OPEN = /^---\r?\n/
// A closing line is exactly `---` (one `\r` allowed before its newline, or the end of the file).
const CLOSE = /\n---\r?(?:\n|$)/g

/**
 * Finds the frontmatter by the exact-line rule: the first line is `---`, and the frontmatter ends at
 * the next line that is exactly `---`. gray-matter alone would accept an unterminated block, close
 * at `----`, and take `---yaml`; this scan runs first so none of that reaches it. With `final`
 * false, `text` is the start of a longer file and undefined means "read more".
 */
export function splitFrontmatter(text: string, final = true): Split | undefined {
  if (!OPEN.test(text)) {
    if (!final && text.length < 5 && '---\r\n'.startsWith(text)) return undefined
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

const yamlEngine = (source: string): object => YAML.parse(source, { prettyErrors: true, uniqueKeys: true, logLevel: 'error' }) as object

/**
 * Parses the frontmatter YAML with gray-matter over the `yaml` package (YAML 1.2 core schema: a date
 * stays a string, `yes` stays a string). Always called with options, so gray-matter's shared
 * cache is never used. A parse failure is a reason, never a throw.
 */
export function parseFrontmatter(yaml: string): { ok: true; data: unknown } | { ok: false; reason: string } {
  const stray = yaml.split('\n').findIndex((line) => line.startsWith('---'))
  if (stray >= 0) return { ok: false, reason: `frontmatter line ${stray + 2} starts with ---, which would be read as a delimiter; quote or remove it` }
  try {
    const file = matter(`---\n${yaml}\n---\n`, { language: 'yaml', engines: { yaml: yamlEngine } })
    return { ok: true, data: file.data }
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]!.replace(/:$/, '') : String(error)
    return { ok: false, reason: `the frontmatter is not valid YAML: ${message}` }
  }
}

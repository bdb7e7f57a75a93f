import { CONTROL_CHARACTER_CLASS } from 'dsh-core'

/**
 * What dsh prints to a person's terminal comes from servers, web pages, files and plugins: their
 * control characters would act on the terminal (clear it, move the cursor, set the title, hide or
 * overwrite lines, reorder text with bidi overrides) instead of showing. On a terminal each one is
 * shown as `?`; line feeds and tabs stay. Written to a pipe or a file, text is left exact.
 */
const ACTING = new RegExp(`(?![\\t\\n])${CONTROL_CHARACTER_CLASS}`, 'g')

/** `text` with every acting character shown as `?` (line feeds and tabs kept). */
export function terminalText(text: string): string {
  return text.replace(ACTING, '?')
}

/** What a stream shows: neutralised when it is a terminal, exact otherwise. */
export function shownOn(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY ? terminalText(text) : text
}

/** Every control character, line feeds and tabs included, and the bidi controls. */
const CONTROL = new RegExp(CONTROL_CHARACTER_CLASS, 'g')

/**
 * `text` as one cell of a row of dsh's own tables (`dsh status`, `dsh trust --list`): every control
 * character shown as `?`, line feeds and tabs too, on a terminal or not, so a path or a detail that
 * holds one (a workspace named `a\nb`) cannot split its row in two or push the next column along.
 */
export function rowCell(text: string): string {
  return text.replace(CONTROL, '?')
}

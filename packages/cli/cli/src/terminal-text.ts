/**
 * What dsh prints to a person's terminal comes from servers, web pages, files and plugins: their
 * control characters would act on the terminal (clear it, move the cursor, set the title, hide or
 * overwrite lines, reorder text with bidi overrides) instead of showing. On a terminal each one is
 * shown as `?`; line feeds and tabs stay. Written to a pipe or a file, text is left exact.
 */
const ACTING = new RegExp('[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]', 'g')

/** `text` with every acting character shown as `?` (line feeds and tabs kept). */
export function terminalText(text: string): string {
  return text.replace(ACTING, '?')
}

/** What a stream shows: neutralised when it is a terminal, exact otherwise. */
export function shownOn(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY ? terminalText(text) : text
}

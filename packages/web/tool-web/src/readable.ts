/**
 * Control characters a reader never sees: C0 controls other than TAB, LF and CR (NUL, ESC, BEL …),
 * DEL and the C1 controls (U+0080–U+009F). A page can hold them anywhere (the provider refuses a
 * text body only for a NUL or many binary bytes in its first 1024 bytes), and a character
 * reference makes any of them (`&#1;`). Passed on, they are noise to the model and, printed by
 * `dsh call`, an escape sequence to the terminal.
 */
const UNSEEN = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/g
const UNSEEN_OR_FORM_FEED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

/**
 * The text as a reader sees it: the unseen controls above removed, as an HTML parser drops NUL from
 * a page's text, and a form feed (a page break in RFCs and other plain-text documents) made a line break.
 * The text itself when it has none (most pages): one scan, no copy.
 */
export function readableText(text: string): string {
  if (!UNSEEN_OR_FORM_FEED.test(text)) return text
  return text.replace(/\f/g, '\n').replace(UNSEEN, '')
}

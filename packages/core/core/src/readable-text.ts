/**
 * Control characters a reader never sees: C0 controls other than TAB, LF and CR (NUL, ESC, BEL …),
 * DEL and the C1 controls (U+0080–U+009F). A page can hold them anywhere (the provider refuses a
 * text body only for a NUL or many binary bytes in its first 1024 bytes), and a character
 * reference makes any of them (`&#1;`); an MCP server's tool text and descriptions (a shell tool's
 * coloured output) hold them as often. Passed on, they are noise to the model and, printed by
 * `dsh call`, an escape sequence to the terminal. Shared here by dsh-web's pages and the MCP
 * bridge's projection of results, so both give the model the same text.
 */
const UNSEEN = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/g
const UNSEEN_OR_FORM_FEED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

/**
 * Terminal escape sequences (ECMA-48), whole: a log's colours leave `[31mERROR[0m` behind when only
 * their ESC goes. In order:
 * - CSI: ESC [ (or the 8-bit U+009B), parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a
 *   final byte 0x40–0x7E (`ESC [1;31m`, `ESC [2K`);
 * - control strings: OSC (ESC ]: a window title, an OSC 8 hyperlink's target), DCS, SOS, PM and APC
 *   (ESC P, X, ^, _), up to their terminator (BEL, ESC \ or U+009C); an unterminated one keeps its
 *   text (its introducer goes below), so a stray ESC ] cannot swallow the rest of a page. A string's
 *   body stops at any ESC, where every introducer starts, so a page of many unterminated ones is
 *   read once, not once per introducer (which took seconds for 80 KB, on the host's main thread).
 *   Not the 8-bit introducers (U+0090, U+0098, U+009D–U+009F): text decoded twice is full of them
 *   (a `”` in UTF-8 read as Latin-1 is `â\u0080\u009d`, a `“` ends in U+009C), and read as strings
 *   they took the text between two quotes with them; they go alone, as controls;
 * - a character-set shift (ESC ( B, as `tput sgr0` writes), and the introducer ESC ] alone.
 * In a page's Markdown turndown has escaped `[`, `]` and `\` (`ESC \[31m`): one backslash may stand
 * before the bracket, and two for the `\` of ESC \.
 */
const ESCAPE_SEQUENCE =
  /(?:\u001b\\?\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|\u001b\\?[\]P^_X][^\u0007\u001b\u009c]*(?:\u0007|\u009c|\u001b\\{1,2})|\u001b[()*+][\u0030-\u007e]|\u001b\\?\]/g

/**
 * The text as a reader sees it: terminal escape sequences taken out whole, then the unseen controls
 * above removed, as an HTML parser drops NUL from a page's text, and a form feed (a page break in
 * RFCs and other plain-text documents) made a line break. The text itself when it has none (most
 * pages): one scan, no copy (every sequence starts with a control character).
 */
export function readableText(text: string): string {
  if (!UNSEEN_OR_FORM_FEED.test(text)) return text
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\f/g, '\n').replace(UNSEEN, '')
}

import { BIDI_CONTROLS } from './control-characters.ts'

/**
 * Control characters a reader never sees: C0 controls other than TAB, LF and CR (NUL, ESC, BEL …),
 * DEL and the C1 controls (U+0080–U+009F). A page can hold them anywhere (the provider refuses a
 * text body only for a NUL or many binary bytes in its first 1024 bytes), and a character
 * reference makes any of them (`&#1;`); an MCP server's tool text and descriptions (a shell tool's
 * coloured output) hold them as often. Passed on, they are noise to the model and, printed by
 * `dsh call`, an escape sequence to the terminal. Shared here by dsh-web's pages and the MCP
 * bridge's projection of results, so both give the model the same text.
 * The bidi controls (control-characters.ts) go with them: an override or isolate reorders what a
 * reader sees around it (a page's U+202E reversed what `dsh call` printed), and a model reads the
 * text in its logical order without them.
 */
const UNSEEN = new RegExp(`[\\u0000-\\u0008\\u000b\\u000e-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`, 'g')
const UNSEEN_OR_FORM_FEED = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`)

/**
 * The longest control string body (OSC, DCS …, between its introducer and its terminator) taken
 * out as a sequence: 2,400 characters. The longest real one in text is an OSC 8 hyperlink, `8;id=…;`
 * and its target, which VTE caps at 250 characters of id and 2,083 of URI (browsers' old URL limit);
 * a window title is far shorter. An introducer whose terminator is further away is not the start
 * of a string a terminal would have kept: it goes alone and the text after it stays, so a stray
 * `ESC ]` cannot take a page's text with it up to some BEL far below.
 */
export const MAX_CONTROL_STRING_CHARS = 2400

/**
 * Terminal escape sequences (ECMA-48), whole: a log's colours leave `[31mERROR[0m` behind when only
 * their ESC goes. In order:
 * - CSI: ESC [, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E
 *   (`ESC [1;31m`, `ESC [2K`);
 * - the 8-bit CSI U+009B only as programs write it into a log: parameters (digits, `;`, `:`) then
 *   a final byte among m (colours), K and J (erase), A–H and f (the cursor), S and T (scrolling),
 *   or `?`, digits and h or l (a mode: the cursor hidden). U+009B is also the last character of
 *   `‛` (E2 80 9B) in text decoded twice, where a letter follows it (`â\u0080\u009bs`): read as any
 *   final byte it took that letter; it goes alone, as a control;
 * - control strings: OSC (ESC ]: a window title, an OSC 8 hyperlink's target), DCS, SOS, PM and APC
 *   (ESC P, X, ^, _), up to their terminator (BEL, ESC \ or U+009C) within
 *   `MAX_CONTROL_STRING_CHARS`; an unterminated one, or one whose terminator is further, keeps its
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
const ESCAPE_SEQUENCE = new RegExp(
  [
    String.raw`\u001b\\?\[[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]`,
    String.raw`\u009b(?:[0-9;:]+[A-HJKSTfm]|\?[0-9;]*[hl])`,
    String.raw`\u001b\\?[\]P^_X][^\u0007\u001b\u009c]{0,${MAX_CONTROL_STRING_CHARS}}(?:\u0007|\u009c|\u001b\\{1,2})`,
    String.raw`\u001b[()*+][\u0030-\u007e]`,
    String.raw`\u001b\\?\]`,
  ].join('|'),
  'g',
)

/**
 * The text as a reader sees it: terminal escape sequences taken out whole, then the unseen controls
 * and bidi controls above removed, as an HTML parser drops NUL from a page's text, and a form feed (a page break in
 * RFCs and other plain-text documents) made a line break. The text itself when it has none (most
 * pages): one scan, no copy (every sequence starts with a control character).
 */
export function readableText(text: string): string {
  if (!UNSEEN_OR_FORM_FEED.test(text)) return text
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\f/g, '\n').replace(UNSEEN, '')
}

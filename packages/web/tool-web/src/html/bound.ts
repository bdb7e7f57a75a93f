import type { HtmlDocument, HtmlElement } from './document.ts'

type ChildNode = HtmlElement['childNodes'][number]

/**
 * Longest whitespace run kept (spaces, newlines, no-break spaces …). turndown trims trailing
 * whitespace with a regular expression that is quadratic in a run's length (a 100 kB `<pre>` of
 * spaces took 17 s); a longer run carries nothing a reader needs.
 */
export const MAX_WHITESPACE_RUN = 256

/**
 * Most child nodes an element keeps directly. turndown joins each child's Markdown onto the text
 * so far and re-reads that text's end every time, which is quadratic in the number of siblings
 * (25 000 `<br>` took seconds); runs of siblings beyond this are wrapped, inline ones in `<span>`s
 * and blocks in `<div>`s, which render as their content, so each join works on a short string.
 * List items, rows and cells are left as they are: their rules look at their parent.
 */
export const MAX_FANOUT = 64

/**
 * Most `<br>` in a row (blank text between them counts as nothing). Each renders as `  \n`, so a
 * run of them is one long whitespace run in the Markdown, which turndown's final trim reads in
 * quadratic time when text follows it (25 000 `<br>` took 10 s): more than two say nothing more.
 */
export const MAX_BREAK_RUN = 2

const WHITESPACE_RUN = new RegExp(`\\s{${MAX_WHITESPACE_RUN + 1},}`, 'g')

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'COL', 'COLGROUP', 'DD', 'DETAILS', 'DIALOG', 'DIR', 'DIV', 'DL', 'DT', 'FIELDSET',
  'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'FRAMESET', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'HTML', 'LEGEND', 'LI', 'MAIN',
  'MENU', 'NAV', 'OL', 'OPTGROUP', 'OPTION', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TD', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL',
])

const TEXT_NODE = 3
const ELEMENT_NODE = 1

/**
 * Reshapes `root` so turndown's work is linear in the page's size: whitespace runs are cut to
 * `MAX_WHITESPACE_RUN` and long runs of siblings are grouped. Neither changes what the
 * Markdown says, except that a run of more than 256 blank characters keeps 256.
 */
export function boundForConversion(document: HtmlDocument, root: HtmlElement): void {
  // Comments and blank inline elements render as nothing but their whitespace, so they would split
  // one whitespace run into pieces the cut below never sees whole: they become their text.
  unwrapBlanks(document, root)
  // linkedom keeps a text node per entity (`a&nbsp;b` is three): merged, a run is one string.
  root.normalize()
  collapseBreakRuns(root)
  const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as unknown as { data: string }
    if (text.data.length > MAX_WHITESPACE_RUN) text.data = text.data.replace(WHITESPACE_RUN, (run) => run.slice(0, MAX_WHITESPACE_RUN))
  }
  const wide: HtmlElement[] = []
  collectWide(root, wide)
  for (const element of wide) groupRuns(document, element)
}

/** Elements that mean something even when blank (turndown keeps or renders them). */
const KEEP_BLANK = new Set(['BR', 'IMG', 'INPUT', 'HR', 'A', 'IFRAME', 'AUDIO', 'VIDEO', 'TEXTAREA', 'SELECT', 'BUTTON'])

function unwrapBlanks(document: HtmlDocument, root: HtmlElement): void {
  const comments = document.createTreeWalker(root, 128 /* NodeFilter.SHOW_COMMENT */)
  const found: ChildNode[] = []
  for (let node = comments.nextNode(); node; node = comments.nextNode()) found.push(node as unknown as ChildNode)
  for (const comment of found) comment.remove()
  // Children before parents (reverse document order), so a parent left blank by its children is seen blank too.
  const elements = [...root.querySelectorAll('*')].reverse()
  for (const element of elements) {
    if (element.firstElementChild || BLOCK.has(element.nodeName) || KEEP_BLANK.has(element.nodeName) || PARENT_BOUND.has(element.nodeName)) continue
    const text = element.textContent ?? ''
    if (/\S/.test(text)) continue
    element.replaceWith(document.createTextNode(text))
  }
}

function collapseBreakRuns(root: HtmlElement): void {
  const runs = new Map<unknown, number>()
  for (const br of root.querySelectorAll('br')) {
    let previous = br.previousSibling
    while (previous && previous.nodeType === TEXT_NODE && !previous.textContent?.trim()) previous = previous.previousSibling
    const run = previous && previous.nodeName === 'BR' ? (runs.get(previous) ?? 0) + 1 : 1
    if (run > MAX_BREAK_RUN) br.remove()
    else runs.set(br, run)
  }
}

function collectWide(element: HtmlElement, into: HtmlElement[]): void {
  if (element.childNodes.length > MAX_FANOUT) into.push(element)
  for (let child = element.firstElementChild; child; child = child.nextElementSibling) collectWide(child as HtmlElement, into)
}

/** Wraps every `MAX_FANOUT` consecutive siblings of one kind in a span or a div, level by level. */
function groupRuns(document: HtmlDocument, parent: HtmlElement): void {
  if (PARENT_BOUND.has(parent.nodeName)) return
  let grouped = true
  while (grouped && parent.childNodes.length > MAX_FANOUT) {
    grouped = false
    let run: ChildNode[] = []
    let runKind: Kind = 'fixed'
    const flush = () => {
      if (run.length > 1) {
        const wrapper = document.createElement(runKind === 'inline' ? 'span' : 'div')
        run[0]!.before(wrapper)
        wrapper.append(...run)
        grouped = true
      }
      run = []
    }
    for (const child of [...parent.childNodes]) {
      const kind = kindOf(child)
      if (kind !== runKind || kind === 'fixed') flush()
      runKind = kind
      if (kind === 'fixed') continue
      run.push(child)
      if (run.length === MAX_FANOUT) flush()
    }
    flush()
  }
}

type Kind = 'inline' | 'block' | 'fixed'

/** Elements whose Markdown depends on their parent, and parents whose children must stay theirs. */
const PARENT_BOUND = new Set(['LI', 'TR', 'TD', 'TH', 'THEAD', 'TBODY', 'TFOOT', 'CAPTION', 'COLGROUP', 'COL', 'DT', 'DD', 'OPTION', 'OPTGROUP', 'SUMMARY', 'UL', 'OL', 'TABLE', 'DL', 'SELECT', 'PRE', 'CODE'])

function kindOf(node: ChildNode): Kind {
  if (node.nodeType === TEXT_NODE) return 'inline'
  if (node.nodeType !== ELEMENT_NODE || PARENT_BOUND.has(node.nodeName)) return 'fixed'
  return BLOCK.has(node.nodeName) ? 'block' : 'inline'
}

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
  // linkedom keeps a text node per entity (`a&nbsp;b` is three): merged, a run is one string.
  root.normalize()
  const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as unknown as { data: string }
    if (text.data.length > MAX_WHITESPACE_RUN) text.data = text.data.replace(WHITESPACE_RUN, (run) => run.slice(0, MAX_WHITESPACE_RUN))
  }
  const wide: HtmlElement[] = []
  collectWide(root, wide)
  for (const element of wide) groupRuns(document, element)
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

import type { HtmlElement } from './document.ts'

type Node = HtmlElement['childNodes'][number]

export interface CutLimits {
  /** Most elements converted (`fetchMaxElements`); the page is cut before the next one. */
  readonly maxElements: number
  /** The output cap (`fetchMaxOutputChars`): past it the Markdown would be cut anyway. */
  readonly maxChars: number
}

/** Where and why a page was cut before conversion. */
export interface Cut {
  /** `elements`: more than `maxElements` (said in a note); `chars`: the text kept already renders past `maxChars`. */
  readonly reason: 'elements' | 'chars'
  /** Elements kept. */
  readonly kept: number
  /** Elements the page (or its main content) had. */
  readonly total: number
  /** The end of the last text kept (at most `AFTER_CHARS`, one line), for the note; empty when none was. */
  readonly after: string
}

const SHOW_ELEMENT_AND_TEXT = 1 | 4
const TEXT_NODE = 3
const ELEMENT_NODE = 1
/** How much of the last text kept the note quotes. */
const AFTER_CHARS = 80

/**
 * Cuts `root` to what is worth converting, in document order: turndown costs ~80–100 µs per
 * element (a 5 MB page of 200 000 links took 17 s in turndown alone, after 4.5 s of parsing), so a
 * page is converted only up to
 *
 * - the point where its text already renders past `maxChars`: the non-blank characters of its
 *   text, and the URL of each link and image, all appear in the Markdown, so the Markdown of what is
 *   kept is longer than the output cap and what is dropped would have been cut from the answer anyway;
 * - `maxElements` elements: a page of many elements and little text (a flood of empty blocks)
 *   stops there, and the answer says so.
 *
 * What follows the cut point is removed (the elements it is inside stay, closed there). Returns
 * undefined when the whole page is within both.
 */
export function cutForConversion(root: HtmlElement, limits: CutLimits): Cut | undefined {
  const walker = root.ownerDocument.createTreeWalker(root, SHOW_ELEMENT_AND_TEXT)
  let elements = 0
  let chars = 0
  let lastText = ''
  for (let node = walker.nextNode() as Node | null; node; node = walker.nextNode() as Node | null) {
    if (node.nodeType === TEXT_NODE) {
      const data = node.textContent ?? ''
      const shown = nonBlankLength(data)
      if (!shown) continue
      lastText = data
      chars += shown
      if (chars > limits.maxChars) return cutAfter(root, node, 'chars', elements, lastText)
      continue
    }
    if (++elements > limits.maxElements) return cutBefore(root, node, elements - 1, lastText)
    chars += urlLength(node as HtmlElement)
  }
  return undefined
}

function cutAfter(root: HtmlElement, node: Node, reason: Cut['reason'], kept: number, after: string): Cut {
  const total = kept + countElementsAfter(root, node)
  removeFollowing(root, node)
  return { reason, kept, total, after: tail(after) }
}

function cutBefore(root: HtmlElement, node: Node, kept: number, after: string): Cut {
  // The element itself and all of its subtree count as dropped.
  const total = kept + countElements(node as HtmlElement) + countElementsAfter(root, node)
  removeFollowing(root, node)
  node.remove()
  return { reason: 'elements', kept, total, after: tail(after) }
}

/** Elements after `node` in document order, outside it. */
function countElementsAfter(root: HtmlElement, node: Node): number {
  let count = 0
  for (let at: Node | null = node; at && at !== (root as unknown as Node); at = at.parentNode as Node | null) {
    for (let sibling = at.nextSibling as Node | null; sibling; sibling = sibling.nextSibling as Node | null) {
      if (sibling.nodeType === ELEMENT_NODE) count += countElements(sibling as HtmlElement)
    }
  }
  return count
}

/**
 * `element` and the elements inside it, counted up to one past `limit`: a caller that asks whether
 * a page is within `limit` stops walking there (`limit + 1` then). Walked by element links
 * (first child, next sibling, parent) rather than a TreeWalker: linkedom's lists every node it
 * would visit when it is made, so it cannot stop early. (`getElementsByTagName('*')` finds none.)
 */
export function countElements(element: HtmlElement, limit = Number.POSITIVE_INFINITY): number {
  let count = 1
  for (let at = element.firstElementChild; at && count <= limit; at = nextElementWithin(at, element)) count++
  return count
}

/** The element after `node` in document order inside `root`: its first child, else the next sibling of it or of an ancestor below `root`. */
function nextElementWithin(node: HtmlElement, root: HtmlElement): HtmlElement | null {
  const child = node.firstElementChild
  if (child) return child
  for (let at: HtmlElement | null = node; at && at !== root; at = at.parentElement) {
    const sibling = at.nextElementSibling
    if (sibling) return sibling
  }
  return null
}

/** Removes everything after `node` in document order, up to the end of `root`. */
function removeFollowing(root: HtmlElement, node: Node): void {
  for (let at: Node | null = node; at && at !== (root as unknown as Node); at = at.parentNode as Node | null) {
    while (at.nextSibling) at.nextSibling.remove()
  }
}

function nonBlankLength(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code !== 32 && code !== 10 && code !== 9 && code !== 13 && code !== 12 && code !== 160) count++
  }
  return count
}

/** A link's or an image's URL, which the Markdown spells out (`[text](url)`, `![alt](url)`). */
function urlLength(element: HtmlElement): number {
  switch (element.nodeName) {
    case 'A':
      return element.getAttribute('href')?.length ?? 0
    case 'IMG':
      return element.getAttribute('src')?.length ?? 0
    default:
      return 0
  }
}

/** The last `AFTER_CHARS` characters of `text`, whitespace collapsed. */
function tail(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > AFTER_CHARS ? `…${line.slice(-AFTER_CHARS)}` : line
}

import { createRequire } from 'node:module'
import type * as GfmPlugins from '@joplin/turndown-plugin-gfm'
import type TurndownService from 'turndown'
import { boundForConversion } from './html/bound.ts'
import { cleanDocument } from './html/clean.ts'
import { countElements, cutForConversion, type Cut } from './html/cut.ts'
import { parseDocument } from './html/document.ts'
import { mainContent } from './html/main-content.ts'

type Node = TurndownService.Node

export interface ConversionOptions {
  /** The page's final URL: relative links and images are made absolute against it (and `<base>`). */
  readonly url?: string
  /** Only the main content (Readability's article); the whole page when none is found. */
  readonly mainContent?: boolean
  /** Most elements converted; the page is cut there and the Markdown ends with a note saying so. Unbounded when omitted. */
  readonly maxElements?: number
  /** The output cap: the page is cut once its text renders past it (html/cut.ts). Unbounded when omitted. */
  readonly maxChars?: number
}

/** A page's Markdown, and where the page was cut before converting (`cutForConversion`), if it was. */
export interface PageMarkdown {
  readonly markdown: string
  readonly cut?: Cut
}

/**
 * HTML → Markdown. The page is parsed into a light DOM (linkedom), cleaned (hidden and non-text
 * elements out, links absolute, empty links dropped), optionally cut to its main content, bounded
 * so the conversion is linear in its size, and converted by turndown: ATX headings, fenced code,
 * `-` bullets, GFM strikethrough, task lists and highlighted code, tables by our own rules.
 */
export function htmlToMarkdown(html: string, options: ConversionOptions = {}): string {
  return pageToMarkdown(html, options).markdown
}

/** `htmlToMarkdown`, saying where the page was cut (by `maxElements` or `maxChars`). */
export function pageToMarkdown(html: string, options: ConversionOptions = {}): PageMarkdown {
  const maxElements = options.maxElements ?? Number.POSITIVE_INFINITY
  const page = cleanPage(html, options.url)
  // Readability takes ~180 µs per element (37 s on 200 000 links): a page over maxElements is
  // converted from its start, and cut, without looking for its article. The count stops past
  // maxElements (the cut below walks the page again, as far as it keeps).
  const article = options.mainContent && (!page.documentElement || countElements(page.documentElement, maxElements) <= maxElements)
  const root = (article && (mainContent(page) ?? cleanPage(html, options.url).body)) || page.body
  if (!root) return { markdown: '' }
  const cut = cutForConversion(root, { maxElements, maxChars: options.maxChars ?? Number.POSITIVE_INFINITY })
  boundForConversion(root.ownerDocument, root)
  converter ??= createConverter()
  // turndown's typings know only the browser's HTMLElement; linkedom's has everything it uses.
  const markdown = converter.turndown(root as unknown as TurndownService.Node)
  return cut ? { markdown: cut.reason === 'elements' ? `${markdown}\n\n${cutNote(cut)}` : markdown, cut } : { markdown }
}

/**
 * What the model reads at the end of a page cut at `maxElements`: that it was, and where. The
 * answer's truncation note follows it (how to see the rest); a page cut at the output cap needs
 * only that note.
 */
function cutNote(cut: Cut): string {
  const where = cut.after ? `; the Markdown above ends after the text "${cut.after}"` : ''
  return `(The page was cut before conversion: it has ${cut.total.toLocaleString('en-US')} elements and web_fetch converts the first ${cut.kept.toLocaleString('en-US')} (fetchMaxElements)${where}.)`
}

/** The page parsed and cleaned; each call parses anew (main-content extraction consumes its document). */
function cleanPage(html: string, url: string | undefined) {
  const document = parseDocument(html)
  cleanDocument(document, url)
  return document
}

let converter: TurndownService | undefined

// turndown loads with the first conversion (synchronously, as htmlToMarkdown is): it is most of this
// package's load time, and a host that never fetches a page never needs it.
const require = createRequire(import.meta.url)

/** One converter is reused: turndown keeps no per-document state. */
function createConverter(): TurndownService {
  const Turndown = require('turndown') as typeof TurndownService
  const { highlightedCodeBlock, strikethrough, taskListItems } = require('@joplin/turndown-plugin-gfm') as typeof GfmPlugins
  const service = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
  service.use([highlightedCodeBlock, strikethrough, taskListItems])
  // Ahead of the plugin's task-list rule, which reads the `checked` property linkedom does not reflect.
  service.addRule('checkedTaskListItem', {
    filter: (node) => node.nodeName === 'INPUT' && node.getAttribute('type')?.toLowerCase() === 'checkbox' && node.hasAttribute('checked') && !!node.closest('li'),
    replacement: () => '[x] ',
  })
  // After the plugin's strikethrough rule, so this one is tried first.
  service.addRule('emphasis', {
    filter: (node) => EMPHASIS[node.nodeName] !== undefined,
    replacement: (content, node) => emphasis(content, node),
  })
  service.addRule('preformatted', { filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE', replacement: (_content, node) => fenced(node.textContent ?? '') })
  service.addRule('tableCell', { filter: ['th', 'td'], replacement: (content, node) => cell(content, node) })
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => `\n${content}${isFirstRow(node) ? `\n${separator(node)}` : ''}`,
  })
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content })
  service.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n` })
  // Added last, so it is tried before the table rules (turndown tries the latest rule first): a
  // layout table (one cell, or cells holding blocks a GFM cell cannot: code, tables) is not
  // tabular data, and its cells render as the blocks they hold.
  service.addRule('layoutTable', { filter: (node) => ['TABLE', 'TR', 'TH', 'TD'].includes(node.nodeName) && isLayoutTable(node.nodeName === 'TABLE' ? node : node.closest('table')), replacement: (content) => `\n\n${content}\n\n` })
  return service
}

/** The Markdown marker of each emphasis element; elements of one kind share it. */
const EMPHASIS: Readonly<Record<string, string>> = { B: '**', STRONG: '**', I: '_', EM: '_', S: '~~', DEL: '~~', STRIKE: '~~' }

/**
 * Emphasis marked once: inside emphasis of the same kind it adds no markers (`**x**y**z**` would
 * close the outer one, and 512 nested `<b>` made a run of 1,024 `*` on each side of the text),
 * and blank emphasis renders nothing (as turndown's own rules do).
 */
function emphasis(content: string, node: Node): string {
  const marker = EMPHASIS[node.nodeName]!
  if (!content.trim()) return ''
  if (insideEmphasis(node, marker)) return content
  // Emphasis right after emphasis of the same kind continues it (`<b>a</b><b>b</b>` is `**ab**`, not
  // `**a****b**`). Both sides drop their marker only when both have text, so the two always agree
  // (a bold image beside bold text keeps its own markers).
  const previous = sameKind(node.previousSibling as Node | null, marker)
  const next = sameKind(node.nextSibling as Node | null, marker)
  if (!previous && !next) return `${marker}${content}${marker}`
  const joins = hasText(node)
  const open = joins && previous && hasText(previous) ? '' : marker
  const close = joins && next && hasText(next) ? '' : marker
  return `${open}${content}${close}`
}

function sameKind(sibling: Node | null, marker: string): Node | undefined {
  return sibling && EMPHASIS[sibling.nodeName] === marker ? sibling : undefined
}

/** Text of its own: such emphasis renders, and can join its neighbour. */
function hasText(node: Node): boolean {
  return !!node.textContent?.trim()
}

/**
 * Whether an ancestor of `node` is emphasis with `marker`. Remembered per node and marker (is the
 * node, or one of its ancestors, that emphasis) as the walk goes, so a page of many emphasis
 * elements under deep nesting takes one step per node, not one per ancestor (the depth is bounded
 * at 512, the elements at `maxElements`, not their product).
 */
const insideByMarker = new Map<string, WeakMap<object, boolean>>()

function insideEmphasis(node: Node, marker: string): boolean {
  let known = insideByMarker.get(marker)
  if (!known) insideByMarker.set(marker, (known = new WeakMap()))
  const path: object[] = []
  let inside = false
  for (let parent = node.parentNode as Node | null; parent; parent = parent.parentNode as Node | null) {
    const remembered = known.get(parent)
    if (remembered !== undefined) {
      inside = remembered
      break
    }
    if (EMPHASIS[parent.nodeName] === marker) {
      inside = true
      path.push(parent)
      break
    }
    path.push(parent)
  }
  // Every node on the path up is inside when the one it reached is (or is that emphasis itself).
  for (const step of path) known.set(step, inside)
  return inside
}

/**
 * A `<pre>` without a `<code>` inside (RFCs, mailing-list archives, man pages, texinfo) is a code
 * block all the same: its text verbatim in a fence longer than any backtick run it holds.
 */
function fenced(text: string): string {
  const code = text.replace(/^\r?\n/, '').replace(/\s+$/, '')
  const longest = Math.max(0, ...(code.match(/^`{3,}/gm) ?? []).map((run) => run.length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `\n\n${fence}\n${code}\n${fence}\n\n`
}

const layoutTables = new WeakMap<object, boolean>()
const CODE_OR_TABLE_IN_CELL = 'td pre, th pre, td table, th table'
const BLOCK_IN_CELL = ['p', 'div', 'ul', 'ol', 'dl', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((block) => `td ${block}, th ${block}`).join(', ')

function isLayoutTable(table: Node | null): boolean {
  if (!table) return false
  let layout = layoutTables.get(table)
  if (layout === undefined) {
    // Blocks a GFM cell cannot hold anywhere in it, or a single cell wrapping blocks (a page frame).
    layout = !!table.querySelector(CODE_OR_TABLE_IN_CELL) || (table.querySelectorAll('td, th').length <= 1 && !!table.querySelector(BLOCK_IN_CELL))
    layoutTables.set(table, layout)
  }
  return layout
}

/**
 * `| x |` for a row's first cell, ` x |` after. Newlines become `<br>`, pipes are escaped, short
 * cells are padded to 3. `colspan` is ignored: GFM cannot span, and honouring a huge value would
 * blow the output up.
 */
function cell(content: string, node: Node): string {
  let text = content.trim().replace(/\r?\n/g, '<br>').replace(/\|+/g, '\\|')
  while (text.length < 3) text += ' '
  return `${isFirstCell(node) ? '| ' : ' '}${text} |`
}

/** No TH or TD before it in its row. */
function isFirstCell(node: Node): boolean {
  return !!node.parentNode && !hasEarlierSibling(node, isCell)
}

/**
 * Walks back to the nearest match only: listing the parent's children for every cell or row made
 * a wide row or a long table quadratic in the converter, which runs synchronously.
 */
function hasEarlierSibling(node: Node, test: (sibling: Node) => boolean): boolean {
  for (let sibling = node.previousSibling; sibling; sibling = sibling.previousSibling) {
    if (test(sibling as Node)) return true
  }
  return false
}

function isCell(node: Node): boolean {
  return node.nodeName === 'TH' || node.nodeName === 'TD'
}

function cellsOf(row: Node | null): Node[] {
  return row ? [...row.childNodes].filter((child): child is Node => isCell(child as Node)) : []
}

/**
 * The table's first row is its GFM header, whether its cells are TH or TD (GFM has no table without
 * one): no TR before it in its section, and no section before that holds a TR.
 */
function isFirstRow(row: Node): boolean {
  if (!cellsOf(row).length || hasEarlierSibling(row, isRow)) return false
  const parent = row.parentNode as Node | null
  if (!parent || parent.nodeName === 'TABLE') return !!parent
  return !hasEarlierSibling(parent, (section) => isRow(section) || [...section.childNodes].some((child) => isRow(child as Node)))
}

function isRow(node: Node): boolean {
  return node.nodeName === 'TR'
}

function separator(row: Node): string {
  return cellsOf(row)
    .map((cellNode, index) => `${index === 0 ? '| ' : ' '}${border(alignment(cellNode))} |`)
    .join('')
}

function alignment(node: Node): string {
  const element = node as unknown as { getAttribute(name: string): string | null; style?: { textAlign?: string } }
  return (element.getAttribute('align') || element.style?.textAlign || '').toLowerCase()
}

function border(align: string): string {
  switch (align) {
    case 'left':
      return ':---'
    case 'right':
      return '---:'
    case 'center':
      return ':---:'
    default:
      return '---'
  }
}

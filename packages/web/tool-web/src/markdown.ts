import { createRequire } from 'node:module'
import type * as GfmPlugins from '@joplin/turndown-plugin-gfm'
import type TurndownService from 'turndown'
import { boundForConversion } from './html/bound.ts'
import { cleanDocument } from './html/clean.ts'
import { parseDocument } from './html/document.ts'
import { mainContent } from './html/main-content.ts'

type Node = TurndownService.Node

export interface ConversionOptions {
  /** The page's final URL: relative links and images are made absolute against it (and `<base>`). */
  readonly url?: string
  /** Only the main content (Readability's article); the whole page when none is found. */
  readonly mainContent?: boolean
}

/**
 * HTML → Markdown. The page is parsed into a light DOM (linkedom), cleaned (hidden and non-text
 * elements out, links absolute, empty links dropped), optionally cut to its main content, bounded
 * so the conversion is linear in its size, and converted by turndown: ATX headings, fenced code,
 * `-` bullets, GFM strikethrough, task lists and highlighted code, tables by our own rules.
 */
export function htmlToMarkdown(html: string, options: ConversionOptions = {}): string {
  const root = (options.mainContent && mainContent(cleanPage(html, options.url))) || cleanPage(html, options.url).body
  if (!root) return ''
  boundForConversion(root.ownerDocument, root)
  converter ??= createConverter()
  // turndown's typings know only the browser's HTMLElement; linkedom's has everything it uses.
  return converter.turndown(root as unknown as TurndownService.Node)
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

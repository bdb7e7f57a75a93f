import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm'
import TurndownService from 'turndown'

type Node = TurndownService.Node

/**
 * HTML → Markdown: ATX headings, fenced code, `-` bullets; script, style and noscript dropped with
 * their contents; GFM strikethrough, task lists and highlighted code from the plugin; tables by our
 * own rules (below). One converter is reused: turndown keeps no per-document state.
 */
function createConverter(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
  service.remove(['script', 'style', 'noscript'])
  service.use([highlightedCodeBlock, strikethrough, taskListItems])
  service.addRule('tableCell', { filter: ['th', 'td'], replacement: (content, node) => cell(content, node) })
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => `\n${content}${isHeadingRow(node) ? `\n${separator(node)}` : ''}`,
  })
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content })
  service.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n` })
  return service
}

let converter: TurndownService | undefined

export function htmlToMarkdown(html: string): string {
  converter ??= createConverter()
  return converter.turndown(html)
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

/** A header row sits in THEAD or is the table's first row, and holds only TH cells. */
function isHeadingRow(row: Node): boolean {
  const parent = row.parentNode as Node | null
  const cells = cellsOf(row)
  if (!parent || !cells.length || !cells.every((child) => child.nodeName === 'TH')) return false
  if (parent.nodeName === 'THEAD') return true
  if (hasEarlierSibling(row, (sibling) => sibling.nodeName === 'TR')) return false
  if (parent.nodeName === 'TABLE') return true
  return parent.nodeName === 'TBODY' && !previousElement(parent, 'TR')
}

function previousElement(section: Node, nodeName: string): boolean {
  const table = section.parentNode as Node | null
  if (!table) return false
  for (const child of table.childNodes) {
    if (child === section) return false
    if ((child as Node).nodeName === 'THEAD' && (child as Node).textContent?.trim()) return true
    if ((child as Node).nodeName === nodeName) return true
  }
  return false
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

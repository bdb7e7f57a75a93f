import { codedDetail, type ApprovalMode, type CapabilityReport, type CatalogEntry, type ToolProgress, type ToolResult } from 'dsh-core'
import { rowCell } from './terminal-text.ts'

export function statusText(rows: readonly CapabilityReport[]): string {
  if (!rows.length) return 'no capabilities are mounted'
  const table = rows.map((row) => [row.surface, row.id, row.configured ? row.state : 'not configured', row.tools.join(',') || '-', codedDetail(row)].map(rowCell))
  const widths = [0, 1, 2, 3].map((column) => Math.max(...table.map((cells) => cells[column]!.length), ['surface', 'id', 'state', 'tools'][column]!.length))
  const line = (cells: readonly string[]) => [...cells.slice(0, 4).map((cell, i) => cell.padEnd(widths[i]!)), cells[4]].join('  ').trimEnd()
  return [line(['surface', 'id', 'state', 'tools', 'detail']), ...table.map(line)].join('\n')
}

/** One block per tool; an approval line only for tools that do not run at once. */
export function toolsText(tools: readonly CatalogEntry[], approvalOf: (name: string) => ApprovalMode | undefined): string {
  if (!tools.length) return 'no tools are registered'
  return tools
    .map((tool) => {
      const approval = approvalOf(tool.name) ?? 'auto'
      const gate = approval === 'auto' ? '' : `\n  approval: ${approval}`
      return `${tool.name}\n  ${tool.description.split('\n')[0]}${gate}\n  parameters: ${JSON.stringify(tool.parameters)}`
    })
    .join('\n')
}

export function resultText(result: ToolResult): string {
  const text = result.content.map((block) => block.text).join('\n')
  return result.isError ? `${text}\n[${result.error.code}]` : text
}

/** `… mcp__x__build: 3/10 compiling` (the total and message when the tool gave them). */
export function progressText(tool: string, update: ToolProgress): string {
  const amount = update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`
  return `… ${tool}: ${amount}${update.message ? ` ${update.message}` : ''}`
}

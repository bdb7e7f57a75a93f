// Every code a caller of the MCP bridge can route on is documented where a caller looks: a row of
// docs/mcp.md's errors table and a mention in the package README's Errors section. A code added to
// errors.ts without either fails here (MCP_UNTRUSTED and others were missing from the table).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { McpErrorCode } from '../src/errors.ts'

const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))

/** The text of a markdown file from `heading` to the next heading of that level. */
function section(file: string, heading: string): string {
  const text = readFileSync(resolve(ROOT, file), 'utf8')
  const start = text.indexOf(`\n${heading}\n`)
  expect(start, `${file} has no "${heading}"`).toBeGreaterThanOrEqual(0)
  const level = heading.slice(0, heading.indexOf(' ') + 1)
  const end = text.indexOf(`\n${level}`, start + heading.length + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

describe('McpErrorCode is documented', () => {
  const codes = Object.values(McpErrorCode)

  it('each code has a row of its own in docs/mcp.md\'s errors table', () => {
    const rows = new Set([...section('docs/mcp.md', '## Errors').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]))
    expect(codes.filter((code) => !rows.has(code))).toEqual([])
  })

  it('each code is named in the dsh-mcp README\'s Errors section', () => {
    const errors = section('packages/mcp/mcp/README.md', '## Errors')
    expect(codes.filter((code) => !errors.includes(`\`${code}\``))).toEqual([])
  })
})

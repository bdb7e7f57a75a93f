// [PURE] Public tool names: reference mcp.md §4.2 golden vectors and checklist items 13–19.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { McpConfig } from '../src/config.ts'
import { planTools } from '../src/discovery.ts'
import { publicToolName } from '../src/naming.ts'

describe('publicToolName', () => {
  it.each([
    ['github', 'create_issue', 'mcp__github__create_issue'],
    ['everything', 'get-sum', 'mcp__everything__get-sum'],
    ['srv', 'admin.reset', 'mcp__srv__admin_reset_3b185f786768'],
    ['srv', 'admin_reset', 'mcp__srv__admin_reset'],
    ['fixture', 'admin.reset', 'mcp__fixture__admin_reset_2d9bb2dfe9aa'],
    ['srv', 'a'.repeat(54), `mcp__srv__${'a'.repeat(54)}`],
    ['srv', 'a'.repeat(55), `mcp__srv__${'a'.repeat(41)}_cae0c391e7b4`],
    ['srv', 'a'.repeat(80), `mcp__srv__${'a'.repeat(41)}_3b75b5cc78d8`],
    ['srv', 'héllo', 'mcp__srv__h_llo_69aafb962afa'],
    ['srv', '😀', 'mcp__srv_____2ab126ff09c4'],
  ])('(%s, %s) → %s', (server, raw, expected) => {
    const name = publicToolName(server, raw)
    expect(name).toBe(expected)
    expect(name.length).toBeLessThanOrEqual(64)
    expect(name).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it('is exactly 64 characters at the boundary: 54 raw characters fit clean, 55 are hashed', () => {
    expect(publicToolName('srv', 'a'.repeat(54))).toHaveLength(64)
    expect(publicToolName('srv', 'a'.repeat(55))).toHaveLength(64)
    expect(publicToolName('srv', 'a'.repeat(55))).toMatch(/_[0-9a-f]{12}$/)
  })

  it('hashes the raw identity: sha256 of server NUL raw (UTF-8), first 12 hex characters', () => {
    const hash = createHash('sha256').update('srv\0admin.reset', 'utf8').digest('hex').slice(0, 12)
    expect(publicToolName('srv', 'admin.reset').endsWith(`_${hash}`)).toBe(true)
  })

  it('keeps distinct raw names distinct and is deterministic', () => {
    expect(publicToolName('srv', 'admin.reset')).not.toBe(publicToolName('srv', 'admin_reset'))
    expect(publicToolName('srv', 'admin.reset')).toBe(publicToolName('srv', 'admin.reset'))
    expect(publicToolName('github', 'search')).not.toBe(publicToolName('web', 'search'))
  })

  it('leaves at least 10 characters of a long raw name visible on the longest server name', () => {
    const server = 'S'.repeat(32)
    const name = publicToolName(server, `visible-part-${'z'.repeat(60)}`)
    expect(name).toHaveLength(64)
    expect(name).toContain('visible-pa')
  })

  it('two servers can share a clean name only when one server name ends in "_", which the row config refuses', () => {
    expect(publicToolName('a_', 'x')).toBe(publicToolName('a', '_x'))
    expect(McpConfig.safeParse({ transport: 'stdio', serverName: 'a_', command: 'node' }).success).toBe(false)
    expect(McpConfig.safeParse({ transport: 'stdio', serverName: '_a', command: 'node' }).success).toBe(true)
    // Without a trailing "_" (and without "__"), the first "__" after "mcp__" ends the server name: the pair is recoverable.
    expect(publicToolName('_a', '_x')).toBe('mcp___a___x')
  })
})

describe('names within one list (planTools)', () => {
  const options = { ...McpConfig.parse({ transport: 'stdio', serverName: 'srv', command: 'node' }), reserved: new Set<string>() }
  const listed = (names: readonly string[]) => names.map((name) => ({ raw: { name, inputSchema: { type: 'object' } }, fingerprint: name }))
  const named = (names: readonly string[]) => new Map(planTools('srv', listed(names), options).tools.map((tool) => [tool.rawName, tool.publicName]))

  it('a raw name that is another tool\'s hashed name keeps it in either order; the hashed one is hashed again', () => {
    const usual = publicToolName('srv', 'admin.reset')
    const squatter = usual.slice('mcp__srv__'.length)
    const expected = new Map([
      [squatter, usual],
      ['admin.reset', publicToolName('srv', 'admin.reset', 1)],
    ])
    expect(named(['admin.reset', squatter])).toEqual(expected)
    expect(new Map([...named([squatter, 'admin.reset'])])).toEqual(expected)
    expect(publicToolName('srv', 'admin.reset', 1)).not.toBe(usual)
    expect(planTools('srv', listed(['admin.reset', squatter]), options).renamed).toEqual([{ rawName: 'admin.reset', publicName: publicToolName('srv', 'admin.reset', 1), usualName: usual, holder: squatter }])
  })

  it('a list without such a pair names every tool as publicToolName does', () => {
    const names = ['admin.reset', 'admin_reset', 'a'.repeat(80), 'plain']
    expect(named(names)).toEqual(new Map(names.map((name) => [name, publicToolName('srv', name)])))
    expect(planTools('srv', listed(names), options).renamed).toEqual([])
  })
})

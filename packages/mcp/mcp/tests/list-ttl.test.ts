// Issue 30 (leftover of item 2): a 2026-07-28 tools/list whose ttlMs has passed is listed again,
// so a server that changes its tools without a list_changed still has them re-indexed (the
// deferred tools' search sees the new one).
import { afterEach, expect, it } from 'vitest'
import { startModernServer, type ModernServer } from './fixtures/modern-server.ts'
import { eventually, startRig, stopRigs } from './fixtures/rig.ts'

const servers: ModernServer[] = []
afterEach(async () => {
  await stopRigs()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

it('re-lists the tools once the listing\'s ttlMs has passed, without a list_changed', async () => {
  const modern = await startModernServer({ toolsTtlMs: 100 })
  servers.push(modern)
  const rig = await startRig({ defer: { aboveTools: 0 } })
  await rig.add({ transport: 'streamable-http', serverName: 'modern', url: modern.url, oauth: false, startupTimeoutMs: 20_000, listTtlFloorMs: 0 })
  expect(await rig.text('mcp__modern__add-tool-quietly', { name: 'quiet' })).toBe('added quiet')
  await eventually(() => expect(rig.toolNames()).toContain('mcp__modern__quiet'))
  // Deferred: the search finds it by its exact name.
  expect(await rig.text('tool_search', { query: 'mcp__modern__quiet' })).toContain('mcp__modern__quiet')
})

// Issue 30 (leftover of item 2): a server whose tools are deferred gets instructions that say how
// to reach them, since the model's tool list no longer shows them.
import { createUserMessage } from 'dsh-core'
import { afterEach, expect, it } from 'vitest'
import { fixtureRow, startRig, stopRigs, type Rig } from './fixtures/rig.ts'

afterEach(stopRigs)

async function firstMessage(rig: Rig): Promise<string> {
  const session = rig.app.sessions.create({ cwd: process.cwd() })
  const decision = await rig.app.sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])
  if (decision.kind !== 'enter') throw new Error('rejected')
  return decision.messages[0]!.content[0]!.text
}

it('name tool_search when the server\'s tools are deferred', async () => {
  const rig = await startRig({ defer: { aboveTools: 3 } })
  await rig.add(fixtureRow({ instructions: true, env: { FIXTURE_INSTRUCTIONS: 'Use add for sums.' } }))
  const deferred = rig.toolNames().filter((name) => rig.app.tools.isDeferred(name)).length
  expect(deferred).toBeGreaterThan(3)
  const text = await firstMessage(rig)
  expect(text).toContain(`Instructions from the MCP server "fixture" for using its tools (mcp__fixture__*; ${deferred} of them are not listed until loaded: call tool_search with a tool's exact name, "select:name1,name2" or words describing the task, or call a tool whose exact name you know directly):\nUse add for sums.`)
})

it('keep the plain wording when nothing is deferred', async () => {
  const rig = await startRig({ defer: { enabled: false } })
  await rig.add(fixtureRow({ instructions: true, env: { FIXTURE_INSTRUCTIONS: 'Use add for sums.' } }))
  expect(await firstMessage(rig)).toContain('Instructions from the MCP server "fixture" for using its tools (mcp__fixture__*):\nUse add for sums.')
})

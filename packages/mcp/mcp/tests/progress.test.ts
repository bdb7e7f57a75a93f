// Progress (issue 17 item 16): every call sends a progressToken; the server's notifications/progress
// reach the host as tool progress (exec.progress → ToolCall.onProgress), reset the call's idle
// deadline (resetTimeoutOnProgress, bounded by maxTotalTimeoutMs), show on a terminal's stderr in
// `dsh call`, and are relayed by `dsh serve` to its own client.
import { PassThrough } from 'node:stream'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { Logger } from 'cordis'
import type { ToolProgress } from 'dsh-core'
import { main } from 'dsh-cli'
import { describe, expect, it } from 'vitest'
import { fixtureRow, startCaseRig } from './fixtures/rig.ts'
import { serveInProcess } from '../../../../test-support/serve-in-process.ts'

const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))
const EVERYTHING = join(ROOT, 'presets/overlays/everything.yml')
const LONG = 'mcp__everything__trigger-long-running-operation'

// Side by side, each case its own rig and server: most of their time is the fixture's ticks and the
// budgets under test running out.
describe.concurrent('progress from the server', () => {
  it('server-everything: each notifications/progress reaches the caller of ctx.tools.execute, in order', async (context) => {
    const rig = await startCaseRig(context)
    await rig.add({ transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], shutdownGraceMs: 500 })
    const seen: ToolProgress[] = []
    const result = await rig.app.tools.execute({ name: LONG, arguments: { duration: 0.3, steps: 3 }, onProgress: (update) => seen.push(update) })
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ])
  })

  it('resets the idle deadline: a call that reports progress may run longer than toolCallTimeoutMs', async (context) => {
    const rig = await startCaseRig(context)
    // 20 reports 100 ms apart: 2 s in all, never 1.5 s without one.
    await rig.add(fixtureRow({ toolCallTimeoutMs: 1500 }))
    const seen: ToolProgress[] = []
    const result = await rig.app.tools.execute({ name: 'mcp__fixture__ticker', arguments: { count: 20, intervalMs: 100 }, onProgress: (update) => seen.push(update) })
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(seen).toHaveLength(20)
    expect(seen.at(-1)).toEqual({ progress: 20, total: 20, message: 'step 20' })
  })

  it('without resetTimeoutOnProgress the same call times out', async (context) => {
    const rig = await startCaseRig(context)
    await rig.add(fixtureRow({ toolCallTimeoutMs: 1500, resetTimeoutOnProgress: false }))
    const result = await rig.call('mcp__fixture__ticker', { count: 20, intervalMs: 100 })
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
  })

  it('maxTotalTimeoutMs bounds a call whose progress never ends', async (context) => {
    const rig = await startCaseRig(context)
    await rig.add(fixtureRow({ toolCallTimeoutMs: 1500, maxTotalTimeoutMs: 1600 }))
    const result = await rig.call('mcp__fixture__ticker', { count: 1000, intervalMs: 100 })
    expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 1600 ms in all (maxTotalTimeoutMs)' })
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 1 })).toBe('2')
  })

  it('a call without progress still ends at toolCallTimeoutMs', async (context) => {
    const rig = await startCaseRig(context)
    await rig.add(fixtureRow({ toolCallTimeoutMs: 300 }))
    const result = await rig.call('mcp__fixture__hang')
    expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 300 ms without an answer or progress' })
  })
})

describe('dsh', () => {
  it('dsh call shows the progress on stderr when it is a terminal', async () => {
    const targets = Logger.targets.slice()
    const stdout = new PassThrough()
    const stderr = Object.assign(new PassThrough(), { isTTY: true })
    const out: string[] = []
    const err: string[] = []
    stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()))
    stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()))
    try {
      const code = await main(['call', LONG, '{"duration":0.2,"steps":2}', '--preset', 'base', '--config', EVERYTHING], { stdout, stderr, stdin: new PassThrough() })
      expect(code, err.join('')).toBe(0)
    } finally {
      Logger.targets.splice(0, Logger.targets.length, ...targets)
    }
    expect(out.join('')).toContain('Long running operation completed')
    expect(err.join('')).toContain(`… ${LONG}: 1/2\n… ${LONG}: 2/2\n`)
  })

  it('dsh serve relays the progress to its own client', async () => {
    const client = new Client({ name: 'progress-test', version: '0' })
    // In this worker (serve-in-process.ts): the relay is the served composition's, not the process's.
    await client.connect(serveInProcess(['--preset', 'base', '--config', EVERYTHING], { cwd: ROOT }).transport)
    try {
      const seen: unknown[] = []
      const result = await client.request(
        { method: 'tools/call', params: { name: LONG, arguments: { duration: 0.2, steps: 2 } } },
        CallToolResultSchema,
        { onprogress: (update) => seen.push(update), timeout: 60_000 },
      )
      expect(result.isError).toBeFalsy()
      // The SDK client drops a progress notification that arrives in the same read as the answer.
      expect(seen[0]).toEqual({ progress: 1, total: 2 })
      expect(seen.length).toBeLessThanOrEqual(2)
    } finally {
      await client.close()
    }
  })
})

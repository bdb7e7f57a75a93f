// A client that writes its requests and closes its writing end (`dsh serve < requests.jsonl`, a
// script's pipe) still reads the answers: a tools/call still running when stdin ends is answered
// with the shutdown error, as on SIGTERM, instead of never.
import { afterEach, describe, expect, it } from 'vitest'
import { dsh, ECHO_PRESET, killRunning } from './helpers.ts'

afterEach(() => killRunning())

describe('dsh serve: stdin closes with a call still running', () => {
  it('answers it -32003 naming why, answers what had finished, and exits 0', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'piped', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'slow', delayMs: 400 } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ]
    const run = await dsh(['serve', '--preset', ECHO_PRESET], { input: lines.map((line) => JSON.stringify(line)).join('\n') + '\n' })
    expect(run.code).toBe(0)
    const answers = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: { code: number; message: string } })
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3])
    expect(answers.find((answer) => answer.id === 3)!.result).toBeDefined()
    expect(answers.find((answer) => answer.id === 2)!.error).toEqual({ code: -32003, message: 'dsh serve is shutting down (its stdin closed): this request was cancelled' })
  })
})

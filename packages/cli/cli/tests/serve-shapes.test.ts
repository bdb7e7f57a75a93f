// Issue 16, item 6: `dsh serve` recognises the plain form of the messages on its hot path without
// zod. The quick checks must never accept what the SDK's schemas refuse, and what they accept must be
// what the schema's parse would have given; everything else still goes through the schema.
import { CallToolRequestSchema, JSONRPCMessageSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { isPlainMessage, plainToolCall } from '../src/serve-shapes.ts'

const call = (params: unknown, extra: object = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params, ...extra })

const messages: Record<string, unknown> = {
  'a tools/call': call({ name: 'lsp', arguments: { operation: 'hover', line: 4 } }),
  'a call with a progress token': call({ name: 'lsp', arguments: {}, _meta: { progressToken: 'p1' } }),
  'a string id and no params': { jsonrpc: '2.0', id: 'a', method: 'ping' },
  'a notification': { jsonrpc: '2.0', method: 'notifications/initialized' },
  'a notification with params': { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user' } },
  'a result response': { jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { approve: true } } },
  'an error response': { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'nope' } },
  'a result with _meta': { jsonrpc: '2.0', id: 0, result: { _meta: { progressToken: 1 } } },
  'a related-task _meta': call({ name: 'x', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } }),
  'a task-augmented call': call({ name: 'x', task: { ttl: 1000 } }),
  'an extra top-level key': call({ name: 'x' }, { extra: true }),
  'jsonrpc 1.0': { jsonrpc: '1.0', id: 1, method: 'ping' },
  'a null id': { jsonrpc: '2.0', id: null, method: 'ping' },
  'a fractional id': { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  'an unsafe integer id': { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
  'params as an array': { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
  'a fractional progress token': call({ name: 'x', _meta: { progressToken: 1.5 } }),
  '_meta as a string': call({ name: 'x', _meta: 'm' }),
  'a method that is not a string': { jsonrpc: '2.0', id: 1, method: 5 },
  'a result that is an array': { jsonrpc: '2.0', id: 1, result: [] },
  'an array': [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
  null: null,
}

describe('isPlainMessage', () => {
  it.each(Object.entries(messages))('%s: accepted only when the SDK schema accepts it unchanged', (_what, message) => {
    const parsed = JSONRPCMessageSchema.safeParse(message)
    if (isPlainMessage(message)) {
      expect(parsed.success).toBe(true)
      expect(parsed.data).toEqual(message)
    }
  })

  it('takes the common forms without the schema', () => {
    for (const what of ['a tools/call', 'a call with a progress token', 'a string id and no params', 'a notification', 'a notification with params', 'a result response']) {
      expect(isPlainMessage(messages[what]), what).toBe(true)
    }
  })
})

describe('plainToolCall', () => {
  const calls: Record<string, unknown> = {
    'name and arguments': { name: 'lsp', arguments: { a: [1, { b: 2 }] } },
    'no arguments': { name: 'lsp' },
    'a progress token': { name: 'lsp', arguments: {}, _meta: { progressToken: 3 } },
    'no name': { arguments: {} },
    'a numeric name': { name: 5 },
    'arguments as a string': { name: 'lsp', arguments: 'x' },
    'arguments as an array': { name: 'lsp', arguments: [] },
    'a task': { name: 'lsp', task: { ttl: 5 } },
    'another params key': { name: 'lsp', other: 1 },
    'other _meta': { name: 'lsp', _meta: { traceId: 'x' } },
  }

  it.each(Object.entries(calls))('%s: recognised only as CallToolRequestSchema parses it', (_what, params) => {
    const request = call(params) as JSONRPCRequest
    const quick = plainToolCall(request)
    if (quick) expect(quick).toEqual(CallToolRequestSchema.parse(request))
  })

  it('recognises the common forms and leaves other methods alone', () => {
    for (const what of ['name and arguments', 'no arguments', 'a progress token']) expect(plainToolCall(call(calls[what]) as JSONRPCRequest), what).toBeDefined()
    expect(plainToolCall({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'lsp' } })).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { jsonRpcEnvelope, LineReader } from '../src/index.ts'

// The one capped newline framer and the one over-long-message id finder, shared by dsh-mcp's stdio
// client transport and dsh serve's stdio transport (issue 27 item 4).

function reader(maxBytes: number) {
  const lines: string[] = []
  const oversized: { bytes: number; head: string; tail: string }[] = []
  const framer = new LineReader({ maxBytes, headBytes: 16, tailBytes: 8 }, { line: (text) => lines.push(text), oversized: (bytes, head, tail) => oversized.push({ bytes, head, tail }) })
  return { framer, lines, oversized }
}

describe('LineReader', () => {
  it('frames lines split across chunks and joined in one, drops CR endings and blank lines', () => {
    const { framer, lines } = reader(100)
    framer.push(Buffer.from('{"a":'))
    framer.push(Buffer.from('1}\r\n\n  \n{"b":2}\n{"c"'))
    framer.push(Buffer.from(':3}\n'))
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}'])
  })

  it('skips a line over the cap to its end, keeping its edges, and reads the next line as usual', () => {
    const { framer, lines, oversized } = reader(10)
    framer.push(Buffer.from('0123456789abcdef'))
    framer.push(Buffer.from('ghijklmnopqrstuvwxyz\r\nok\n'))
    expect(oversized).toEqual([{ bytes: 37, head: '0123456789abcdef', tail: 'tuvwxyz' }])
    expect(lines).toEqual(['ok'])
  })

  it('a line of exactly the cap is read whole', () => {
    const { framer, lines, oversized } = reader(5)
    framer.push(Buffer.from('12345\n'))
    expect([lines, oversized]).toEqual([['12345'], []])
  })

  it('clear() forgets a half-read line', () => {
    const { framer, lines } = reader(100)
    framer.push(Buffer.from('{"half":'))
    framer.clear()
    framer.push(Buffer.from('{"whole":1}\n'))
    expect(lines).toEqual(['{"whole":1}'])
  })
})

describe('jsonRpcEnvelope', () => {
  it('reads an id written first, with the method', () => {
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"aaaa', '')).toEqual({ id: 7, idUnreadable: false, method: 'tools/call', response: false })
  })

  it('reads an id written last (the TypeScript SDK), never a nested params.id', () => {
    expect(jsonRpcEnvelope('{"method":"tools/call","params":{"id":99,"x":"aaa', 'aaaa"}},"jsonrpc":"2.0","id":"req-1"}')).toEqual({ id: 'req-1', idUnreadable: false, method: 'tools/call', response: false })
  })

  it('marks an answer as a response, and finds no id where none can be read', () => {
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","result":{"content":[{"text":"aaa', 'aaa"}]}}')).toEqual({ id: undefined, idUnreadable: false, method: undefined, response: true })
    expect(jsonRpcEnvelope('{"id":3,"error":{"code":-1,"message":"x', '')).toMatchObject({ id: 3, response: true })
  })

  it('an id that is there but no string or finite number is unreadable (answered with id null), never guessed', () => {
    const huge = '9'.repeat(400)
    // First: 400 digits (JSON makes them Infinity), an object, null.
    expect(jsonRpcEnvelope(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"x":"aaa`, 'aaa"}}')).toMatchObject({ id: undefined, idUnreadable: true, method: 'tools/call' })
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","id":{"n":1},"method":"tools/call","params":{"x":"aaa', 'aaa"}}')).toMatchObject({ id: undefined, idUnreadable: true })
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"x":"aaa', 'aaa"}}')).toMatchObject({ id: undefined, idUnreadable: true })
    // Last: its key within the tail, or (longer than the tail) a number closing the message.
    expect(jsonRpcEnvelope('{"method":"tools/call","params":{"x":"aaa', 'aaa"},"jsonrpc":"2.0","id":1e999}')).toMatchObject({ id: undefined, idUnreadable: true })
    expect(jsonRpcEnvelope('{"method":"tools/call","params":{"x":"aaa', huge.slice(0, 255) + '}')).toMatchObject({ id: undefined, idUnreadable: true })
    // A notification, and a message ending in a nested number, have none.
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","method":"notifications/x","params":{"x":"aaa', 'aaa"}}')).toMatchObject({ idUnreadable: false })
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","method":"notifications/x","params":{"x":[1,2', '3,4]}}')).toMatchObject({ idUnreadable: false })
  })
})

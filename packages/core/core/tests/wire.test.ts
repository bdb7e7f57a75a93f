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
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"aaaa', '')).toEqual({ id: 7, method: 'tools/call', response: false })
  })

  it('reads an id written last (the TypeScript SDK), never a nested params.id', () => {
    expect(jsonRpcEnvelope('{"method":"tools/call","params":{"id":99,"x":"aaa', 'aaaa"}},"jsonrpc":"2.0","id":"req-1"}')).toEqual({ id: 'req-1', method: 'tools/call', response: false })
  })

  it('marks an answer as a response, and finds no id where none can be read', () => {
    expect(jsonRpcEnvelope('{"jsonrpc":"2.0","result":{"content":[{"text":"aaa', 'aaa"}]}}')).toEqual({ id: undefined, method: undefined, response: true })
    expect(jsonRpcEnvelope('{"id":3,"error":{"code":-1,"message":"x', '')).toMatchObject({ id: 3, response: true })
  })
})

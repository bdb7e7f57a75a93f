// [PURE] The frame guard in front of vscode-jsonrpc: bounded header blocks, banner lines skipped
// (reference lsp.md §3.12), a Content-Length over maxMessageBytes refused before the body, body
// bytes passed through whole across any chunking.
import { PassThrough } from 'node:stream'
import { LspError } from 'dsh-lsp'
import { describe, expect, it } from 'vitest'
import { FrameGuard, MAX_HEADER_BYTES, parseHeader } from '../src/frame-guard.ts'

const frame = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

/** Feeds `chunks` through a guard on a stream standing for stdout; resolves with what came out, or the error it ended with. */
async function guard(chunks: (string | Buffer)[], maxMessageBytes = 1_000): Promise<{ out: string; error?: LspError }> {
  const stdout = new PassThrough()
  const stream = new FrameGuard(stdout, 'fake', maxMessageBytes)
  const out: Buffer[] = []
  stream.onData((chunk) => out.push(Buffer.from(chunk)))
  const done = new Promise<LspError | undefined>((resolve) => {
    stream.onError((error) => resolve(error as LspError))
    stream.onEnd(() => resolve(undefined))
  })
  for (const chunk of chunks) {
    if (stream.ended) break
    stdout.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  }
  if (!stream.ended) stdout.end()
  const error = await done
  return { out: Buffer.concat(out).toString('utf8'), ...(error ? { error } : {}) }
}

describe('FrameGuard', () => {
  it('passes frames through unchanged, in one chunk or split at every byte', async () => {
    const text = frame('{"a":1}') + frame('{"b":"é"}') + frame('')
    expect(await guard([text])).toEqual({ out: text })
    expect(await guard([...Buffer.from(text)].map((byte) => Buffer.from([byte])))).toEqual({ out: text })
  })

  it('skips banner lines before a header (CRLF or bare LF), and blocks of nothing but such lines', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":null}'
    expect(await guard([`garbage\r\n${frame(body)}`])).toEqual({ out: frame(body) })
    expect(await guard(['Starting fake server v1.0\nlistening on stdio\n', frame(body)])).toEqual({ out: frame(body) })
    expect(await guard([`banner\r\n\r\n${frame(body)}`])).toEqual({ out: frame(body) })
  })

  it('ignores other headers, keeps the first Content-Length, and hands on a clean header', async () => {
    const body = '{"x":1}'
    const out = `Content-Length: ${body.length}\r\n\r\n${body}`
    expect(await guard([`Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  ${body.length} \r\nContent-Length: 99\r\n\r\n${body}`])).toEqual({ out })
  })

  it('refuses a Content-Length over maxMessageBytes before any of the body arrives; exactly the limit passes', async () => {
    const { out, error } = await guard(['Content-Length: 1001\r\n\r\n'], 1_000)
    expect(out).toBe('')
    expect(error).toBeInstanceOf(LspError)
    expect(error).toMatchObject({ code: 'LSP_MESSAGE_TOO_LARGE', message: expect.stringContaining('1001-byte message, over the 1000-byte limit (maxMessageBytes)') })
    const body = `"${'x'.repeat(998)}"`
    expect(await guard([frame(body)], 1_000)).toEqual({ out: frame(body) })
  })

  it('refuses output without a header terminator once it passes 64 KiB, and a header block over 64 KiB', async () => {
    const noise = Buffer.alloc(16 * 1024, 'no terminator here\n')
    const endless = await guard(Array.from({ length: 10 }, () => noise))
    expect(endless.error).toMatchObject({ code: 'LSP_PROTOCOL_ERROR', message: expect.stringContaining('without a header terminator') })
    const long = await guard([`X-Long: ${'y'.repeat(MAX_HEADER_BYTES)}\r\nContent-Length: 2\r\n\r\n{}`])
    expect(long.error).toMatchObject({ code: 'LSP_PROTOCOL_ERROR', message: expect.stringContaining('header block of') })
    // up to the bound, banner text is fine
    const banner = 'b'.repeat(MAX_HEADER_BYTES - 100)
    expect(await guard([`${banner}\n${frame('{}')}`])).toEqual({ out: frame('{}') })
  })

  it('a missing or malformed Content-Length is a protocol error', async () => {
    for (const [header, reason] of [
      ['X-Fake-Header: 1', 'without Content-Length'],
      ['Content-Length: abc', 'invalid Content-Length "abc"'],
      ['Content-Length: -1', 'invalid Content-Length "-1"'],
      ['Content-Length: 1.5', 'invalid Content-Length "1.5"'],
    ] as [string, string][]) {
      const { error } = await guard([`${header}\r\n\r\n{}`])
      expect(error, header).toMatchObject({ code: 'LSP_PROTOCOL_ERROR', message: expect.stringContaining(reason) })
    }
  })

  it('parseHeader: noise, frames and the reasons a block is refused', () => {
    expect(parseHeader('just a banner')).toEqual({ kind: 'noise' })
    expect(parseHeader('Content-Length: 12')).toEqual({ kind: 'frame', length: 12 })
    expect(parseHeader('banner\nContent-Length: 3')).toEqual({ kind: 'frame', length: 3 })
    expect(parseHeader('Content-Length: 99999999999999999999')).toEqual({ kind: 'frame', length: 1e20 })
    expect(parseHeader('Content-Type: x')).toMatchObject({ kind: 'invalid' })
  })
  it('reads a canonical header without a regular expression (every frame a server sends pays for it)', async () => {
    const bodies = Array.from({ length: 50 }, (_, index) => `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"${index}"}}`)
    const text = bodies.map(frame).join('')
    const exec = RegExp.prototype.exec
    let executions = 0
    RegExp.prototype.exec = function (this: RegExp, input: string) {
      executions++
      return exec.call(this, input)
    }
    try {
      expect(await guard([text], 1_000)).toEqual({ out: text })
      expect(parseHeader('Content-Length: 0')).toEqual({ kind: 'frame', length: 0 })
      expect(executions).toBe(0)
      // What is not canonical is still read the slow way, and the same as before.
      expect(parseHeader('Content-Length: 012')).toEqual({ kind: 'frame', length: 12 })
      expect(parseHeader('Content-Length: ')).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('invalid Content-Length') })
      expect(parseHeader('Content-Length: 1x')).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('invalid Content-Length') })
      expect(parseHeader('Content-Length: 12\r\nContent-Type: x')).toEqual({ kind: 'frame', length: 12 })
      expect(executions).toBeGreaterThan(0)
    } finally {
      RegExp.prototype.exec = exec
    }
  })
})

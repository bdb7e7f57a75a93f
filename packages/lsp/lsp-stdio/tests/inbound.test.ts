// [PROC] What a server writes to us is bounded: a message over maxMessageBytes is refused before its
// body is read (LSP_MESSAGE_TOO_LARGE, the server replaced, no replay), output without a header
// terminator is cut off at 64 KiB (LSP_PROTOCOL_ERROR), and the host's memory stays flat while a
// server pours 100 MB at it. A banner before the first frame is skipped (reference lsp.md §3.12).
import { afterEach, describe, expect, it } from 'vitest'
import { fakeMessages, type FakeLspConfig } from './fixtures/fake-config.ts'
import { cleanupRigs, isAlive, makeRig, range, rejection } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const HUNDRED_MB = 100_000_000
const found = [{ uri: 'file:///w/found.ts', range: range(0, 0) }]

/** Runs `work` while sampling this process's RSS; resolves with its outcome and the peak growth in bytes. */
async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ outcome: T; growth: number }> {
  const baseline = process.memoryUsage.rss()
  let peak = baseline
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2)
  try {
    const outcome = await work()
    peak = Math.max(peak, process.memoryUsage.rss())
    return { outcome, growth: peak - baseline }
  } finally {
    clearInterval(sampler)
  }
}

describe('maxMessageBytes', () => {
  it('a 100 MB answer is refused unread with LSP_MESSAGE_TOO_LARGE, not replayed, and the host stays small', async () => {
    const rig = await makeRig({ sequence: [{ oversizeAnswerBytes: HUNDRED_MB }, { results: { 'textDocument/definition': found } }] })
    const { outcome: error, growth } = await peakRssGrowth(() => rejection(rig.query('goToDefinition')))
    expect(error).toMatchObject({ code: 'LSP_MESSAGE_TOO_LARGE', message: expect.stringContaining(`${HUNDRED_MB}-byte message, over the 16000000-byte limit`) })
    expect(growth).toBeLessThan(HUNDRED_MB / 4)
    // the same question would get the same answer: no replay, but the server is gone…
    expect(rig.pids()).toHaveLength(1)
    expect(isAlive(rig.pids()[0]!)).toBe(false)
    // …and the next query gets a fresh one, with no crash held against it
    expect(await rig.query('goToDefinition')).toMatchObject({ locations: found })
    expect(rig.pids()).toHaveLength(2)
    expect(rig.provider.status().state).toBe('ready')
  })

  it('is a config field: an answer one byte over it is refused, one at it is read', async () => {
    // the definition's answer is by far the largest message the server sends
    const large = [{ uri: `file:///w/${'x'.repeat(2000)}.ts`, range: range(0, 0) }]
    const fake: FakeLspConfig = { results: { 'textDocument/definition': large } }
    const probe = await makeRig({ fake })
    await probe.query('goToDefinition')
    const answer = fakeMessages(probe.entries(), 'out').find((message) => Array.isArray(message.result))!
    const size = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', ...answer, dir: undefined }))
    const fits = await makeRig({ fake, server: { maxMessageBytes: size } })
    expect(await fits.query('goToDefinition')).toMatchObject({ locations: large })
    const over = await makeRig({ fake, server: { maxMessageBytes: size - 1 } })
    expect(await rejection(over.query('goToDefinition'))).toMatchObject({ code: 'LSP_MESSAGE_TOO_LARGE', message: expect.stringContaining(`${size}-byte message`) })
  })
})

describe('output that is not framed', () => {
  it('100 MB of log lines without a header terminator: LSP_PROTOCOL_ERROR after 64 KiB, the host stays small', async () => {
    const rig = await makeRig({ fake: { noiseBytes: HUNDRED_MB } })
    const { outcome: error, growth } = await peakRssGrowth(() => rejection(rig.query('goToDefinition')))
    expect(error).toMatchObject({ code: 'LSP_PROTOCOL_ERROR', message: expect.stringContaining('without a header terminator') })
    expect(growth).toBeLessThan(HUNDRED_MB / 4)
    expect(rig.pids().filter(isAlive)).toEqual([])
  })

  it.each([
    ['a bare-LF banner', { stdoutBanner: 'fake language server 1.0\nlistening on stdio\n' }],
    ['a CRLF line right before the initialize reply', { garbage: 'strayLineBeforeInitializeReply' }],
    ['a banner block ending in a blank line', { stdoutBanner: 'fake language server 1.0\r\n\r\n' }],
  ] as [string, FakeLspConfig][])('%s before the first frame is skipped: the first server answers', async (_label, fake) => {
    const rig = await makeRig({ fake: { ...fake, results: { 'textDocument/definition': found } } })
    expect(await rig.query('goToDefinition')).toMatchObject({ locations: found })
    expect(rig.pids()).toHaveLength(1)
    expect(fakeMessages(rig.entries(), 'in', 'initialized')).toHaveLength(1)
  })

  it('a banner is skipped only up to 64 KiB', async () => {
    const rig = await makeRig({ fake: { stdoutBanner: 'banner line\n'.repeat(6000) } })
    const error = await rejection(rig.query('goToDefinition'))
    expect(error).toMatchObject({ code: 'LSP_PROTOCOL_ERROR', message: expect.stringContaining('not LSP framing') })
  })
})

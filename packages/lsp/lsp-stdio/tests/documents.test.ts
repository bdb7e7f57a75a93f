// Issue 27 item 2, diagnostics after a change: every text read after a change to a document a server
// keeps open is digested to tell whether the server already has it. A `Hash` object per digest
// (createHash, update, digest) cost about four times the one-shot `crypto.hash`. Counted, not timed.
import * as crypto from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { digestOf, KeptDocuments } from '../src/documents.ts'

vi.mock('node:crypto', async (original) => {
  const actual = await original<typeof import('node:crypto')>()
  return { ...actual, createHash: vi.fn(actual.createHash), hash: vi.fn(actual.hash) }
})

afterEach(() => {
  vi.clearAllMocks()
})

const TEXTS = ['', 'one\n', "export const label = '🎉🎉'\n", 'x'.repeat(100_000)]

describe('the digest of a kept document', () => {
  it('makes no Hash object, and is the SHA-1 a Hash gives, in base64', async () => {
    const { createHash } = await vi.importActual<typeof import('node:crypto')>('node:crypto')
    const digests = TEXTS.map(digestOf)
    expect(vi.mocked(crypto.createHash)).toHaveBeenCalledTimes(0)
    expect(vi.mocked(crypto.hash)).toHaveBeenCalledTimes(TEXTS.length)
    expect(digests).toEqual(TEXTS.map((text) => createHash('sha1').update(text).digest('base64')))
  })

  it('tells a kept text from another: the same text keeps its digest, another differs', () => {
    const kept = new KeptDocuments(2)
    kept.add('file:///a.ts', 1, 'one\n')
    const document = kept.use('file:///a.ts')!
    expect(document.digest).toBe(digestOf('one\n'))
    expect(digestOf('two\n')).not.toBe(document.digest)
  })
})

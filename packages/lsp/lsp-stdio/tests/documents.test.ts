// Issue 27 item 2, diagnostics after a change: every text read after a change to a document a server
// keeps open is digested to tell whether the server already has it. A `Hash` object per digest
// (createHash, update, digest) cost about four times the one-shot `crypto.hash`. Counted, not timed.
// Counted on node:crypto itself (its named exports re-synced), not by mocking the module: the suite
// shares modules between files (isolate: false), so a mock comes too late for a documents.ts another
// file imported first (it failed so when run beside other lsp-stdio files).
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { digestOf, KeptDocuments } from '../src/documents.ts'

let hashObjects: MockInstance<typeof crypto.createHash>
let oneShotHashes: MockInstance<typeof crypto.hash>

beforeEach(() => {
  hashObjects = vi.spyOn(crypto, 'createHash')
  oneShotHashes = vi.spyOn(crypto, 'hash')
  syncBuiltinESMExports()
})

afterEach(() => {
  vi.restoreAllMocks()
  syncBuiltinESMExports()
})

const TEXTS = ['', 'one\n', "export const label = '🎉🎉'\n", 'x'.repeat(100_000)]

describe('the digest of a kept document', () => {
  it('makes no Hash object, and is the SHA-1 a Hash gives, in base64', () => {
    const digests = TEXTS.map(digestOf)
    expect(hashObjects).toHaveBeenCalledTimes(0)
    expect(oneShotHashes).toHaveBeenCalledTimes(TEXTS.length)
    hashObjects.mockRestore()
    expect(digests).toEqual(TEXTS.map((text) => crypto.createHash('sha1').update(text).digest('base64')))
  })

  it('tells a kept text from another: the same text keeps its digest, another differs', () => {
    const kept = new KeptDocuments(2)
    kept.add('file:///a.ts', 1, 'one\n')
    const document = kept.use('file:///a.ts')!
    expect(document.digest).toBe(digestOf('one\n'))
    expect(digestOf('two\n')).not.toBe(document.digest)
  })
})

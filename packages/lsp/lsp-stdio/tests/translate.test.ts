// [PURE] Result translation and capability checks (reference lsp.md §3.7, checklist 38–62).
import { LspError } from 'dsh-lsp'
import { describe, expect, it } from 'vitest'
import type { ServerCapabilities } from 'vscode-languageserver-protocol'
import { checkPositionEncoding, methodOf, supportsOperation, supportsTransientOpen, toHover, toLocations } from '../src/translate.ts'

const r = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }
const r2 = { start: { line: 7, character: 0 }, end: { line: 9, character: 3 } }

function thrown(fn: () => unknown): LspError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LspError)
    return error as LspError
  }
  throw new Error('expected a throw')
}

function malformed(fn: () => unknown, pattern?: RegExp): void {
  const error = thrown(fn)
  expect(error.code).toBe('LSP_MALFORMED_RESPONSE')
  if (pattern) expect(error.message).toMatch(pattern)
}

describe('methodOf (38)', () => {
  it('maps the four operations to their LSP methods', () => {
    expect(methodOf('goToDefinition')).toBe('textDocument/definition')
    expect(methodOf('findReferences')).toBe('textDocument/references')
    expect(methodOf('goToImplementation')).toBe('textDocument/implementation')
    expect(methodOf('hover')).toBe('textDocument/hover')
  })

  it('refuses an operation outside the closed union', () => {
    expect(() => methodOf('rename' as never)).toThrow(/unexpected LSP operation/)
  })
})

describe('supportsOperation (39)', () => {
  it('counts true and options objects as supported', () => {
    expect(supportsOperation({ definitionProvider: true }, 'goToDefinition')).toBe(true)
    expect(supportsOperation({ referencesProvider: { workDoneProgress: true } }, 'findReferences')).toBe(true)
    expect(supportsOperation({ implementationProvider: { id: 'x', documentSelector: null } }, 'goToImplementation')).toBe(true)
    expect(supportsOperation({ hoverProvider: {} }, 'hover')).toBe(true)
  })

  it('counts false, absent and null as unsupported', () => {
    expect(supportsOperation({ definitionProvider: false }, 'goToDefinition')).toBe(false)
    expect(supportsOperation({}, 'hover')).toBe(false)
    expect(supportsOperation({ hoverProvider: null } as unknown as ServerCapabilities, 'hover')).toBe(false)
    // another operation's capability does not count
    expect(supportsOperation({ definitionProvider: true }, 'goToImplementation')).toBe(false)
  })
})

describe('supportsTransientOpen (40–42)', () => {
  it('accepts sync kinds Full (1) and Incremental (2), refuses None (0) and absent', () => {
    expect(supportsTransientOpen({ textDocumentSync: 1 })).toBe(true)
    expect(supportsTransientOpen({ textDocumentSync: 2 })).toBe(true)
    expect(supportsTransientOpen({ textDocumentSync: 0 })).toBe(false)
    expect(supportsTransientOpen({})).toBe(false)
  })

  it('accepts the object form only with an explicit openClose: true', () => {
    expect(supportsTransientOpen({ textDocumentSync: { openClose: true } })).toBe(true)
    expect(supportsTransientOpen({ textDocumentSync: { openClose: true, change: 2 } })).toBe(true)
    expect(supportsTransientOpen({ textDocumentSync: { openClose: false, change: 2 } })).toBe(false)
    expect(supportsTransientOpen({ textDocumentSync: { change: 1 } })).toBe(false)
    expect(supportsTransientOpen({ textDocumentSync: { change: 2 } })).toBe(false)
    expect(supportsTransientOpen({ textDocumentSync: {} })).toBe(false)
    expect(supportsTransientOpen({ textDocumentSync: null } as unknown as ServerCapabilities)).toBe(false)
  })
})

describe('checkPositionEncoding (43)', () => {
  it('accepts an absent encoding and utf-16', () => {
    expect(() => checkPositionEncoding({})).not.toThrow()
    expect(() => checkPositionEncoding({ positionEncoding: 'utf-16' })).not.toThrow()
  })

  it('refuses utf-8 and utf-32 with LSP_ENCODING_UNSUPPORTED', () => {
    for (const encoding of ['utf-8', 'utf-32']) {
      const error = thrown(() => checkPositionEncoding({ positionEncoding: encoding }))
      expect(error.code).toBe('LSP_ENCODING_UNSUPPORTED')
      expect(error.message).toContain('unsupported position encoding')
      expect(error.message).toContain(encoding)
    }
  })
})

describe('toLocations (44–50)', () => {
  it('maps null to [] and a missing result to LSP_MALFORMED_RESPONSE', () => {
    expect(toLocations(null)).toEqual([])
    malformed(() => toLocations(undefined), /missing/)
  })

  it('treats a single Location as a one-element array', () => {
    expect(toLocations({ uri: 'file:///w/a.ts', range: r })).toEqual([{ uri: 'file:///w/a.ts', range: r }])
  })

  it('keeps the order of an array of Locations, and an empty array stays empty', () => {
    const items = [
      { uri: 'file:///w/b.ts', range: r2 },
      { uri: 'file:///w/a.ts', range: r },
    ]
    expect(toLocations(items)).toEqual(items)
    expect(toLocations([])).toEqual([])
  })

  it('maps a LocationLink to its targetSelectionRange, dropping targetRange and originSelectionRange', () => {
    const link = { originSelectionRange: r, targetUri: 'file:///w/impl.ts', targetRange: r2, targetSelectionRange: r }
    expect(toLocations([link])).toEqual([{ uri: 'file:///w/impl.ts', range: r }])
    expect(toLocations(link)).toEqual([{ uri: 'file:///w/impl.ts', range: r }])
  })

  it('checks the LocationLink shape first, then falls back to a Location', () => {
    const both = { targetUri: 'file:///w/t.ts', targetSelectionRange: r2, uri: 'file:///w/u.ts', range: r }
    expect(toLocations([both])).toEqual([{ uri: 'file:///w/t.ts', range: r2 }])
    const brokenLink = { targetUri: 'file:///w/t.ts', targetSelectionRange: 'nope', uri: 'file:///w/u.ts', range: r }
    expect(toLocations([brokenLink])).toEqual([{ uri: 'file:///w/u.ts', range: r }])
  })

  it('keeps a non-file URI verbatim and copies ranges field by field', () => {
    const extra = { uri: 'deno:/asset/lib.d.ts', range: { start: { line: 0, character: 0, extra: 1 }, end: { line: 0, character: 3 }, more: true }, x: 1 }
    expect(toLocations([extra])).toEqual([{ uri: 'deno:/asset/lib.d.ts', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } }])
  })

  it('refuses a non-object element (48)', () => {
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: r }, 'file:///w/b.ts']), /non-object/)
    malformed(() => toLocations([null]), /non-object/)
    malformed(() => toLocations([[{ uri: 'file:///w/a.ts', range: r }]]), /non-object/)
    malformed(() => toLocations(42), /non-object/)
  })

  it('refuses elements that are neither a Location nor a LocationLink (49)', () => {
    const neither = /neither a Location nor a LocationLink/
    malformed(() => toLocations([{ nope: true }]), neither)
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: 'L1' }]), neither)
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: { start: null, end: null } }]), neither)
    malformed(() => toLocations([{ uri: 42, range: r }]), neither)
    malformed(() => toLocations([{ targetUri: 'file:///w/a.ts', targetRange: r }]), neither)
  })

  it('refuses negative or fractional coordinates (50)', () => {
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: { start: { line: -1, character: 0 }, end: { line: 0, character: 1 } } }]))
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1.5 } } }]))
    malformed(() => toLocations([{ uri: 'file:///w/a.ts', range: { start: { line: '0', character: 0 }, end: { line: 0, character: 1 } } }]))
    malformed(() => toLocations([{ targetUri: 'file:///w/a.ts', targetSelectionRange: { start: { line: 0, character: Number.NaN }, end: { line: 0, character: 1 } } }]))
  })
})

describe('toHover (51–62)', () => {
  it('maps null to null and a missing result to LSP_MALFORMED_RESPONSE (51)', () => {
    expect(toHover(null)).toBeNull()
    malformed(() => toHover(undefined), /missing/)
  })

  it('uses MarkupContent value and copies the range; the kind is not kept (52)', () => {
    expect(toHover({ contents: { kind: 'markdown', value: '# H' }, range: r })).toEqual({ contents: '# H', range: r })
    expect(toHover({ contents: { kind: 'plaintext', value: 'plain' } })).toEqual({ contents: 'plain' })
  })

  it('keeps plain string contents verbatim (53)', () => {
    expect(toHover({ contents: 'plain text' })).toEqual({ contents: 'plain text' })
  })

  it('renders a {language, value} MarkedString as a fenced block (54)', () => {
    expect(toHover({ contents: { language: 'ts', value: 'const x = 1' } })).toEqual({ contents: '```ts\nconst x = 1\n```' })
  })

  it('joins an array of MarkedStrings with a blank line (55)', () => {
    expect(toHover({ contents: ['a', { language: 'ts', value: 'b' }] })).toEqual({ contents: 'a\n\n```ts\nb\n```' })
  })

  it('trims the padding servers put around contents', () => {
    expect(toHover({ contents: { kind: 'markdown', value: '\n```ts\nconst a: number\n```\n\n' } })).toEqual({ contents: '```ts\nconst a: number\n```' })
    expect(toHover({ contents: ['', 'docs\n'] })).toEqual({ contents: 'docs' })
    expect(toHover({ contents: '  \n ' })).toBeNull()
  })

  it('maps empty contents to null (56)', () => {
    expect(toHover({ contents: { kind: 'plaintext', value: '' } })).toBeNull()
    expect(toHover({ contents: '' })).toBeNull()
    expect(toHover({ contents: [] })).toBeNull()
  })

  it('refuses MarkupContent with a non-string value (57)', () => {
    malformed(() => toHover({ contents: { kind: 'markdown', value: 42 } }), /not a string/)
    malformed(() => toHover({ contents: { kind: 'plaintext' } }), /not a string/)
  })

  it('refuses a non-object hover payload (58)', () => {
    malformed(() => toHover(42), /was not an object/)
    malformed(() => toHover('text'), /was not an object/)
    malformed(() => toHover([{ contents: 'x' }]), /was not an object/)
  })

  it('refuses contents that are not MarkupContent or MarkedString (59)', () => {
    malformed(() => toHover({ contents: { weird: true } }), /were not MarkupContent/)
    malformed(() => toHover({ contents: 42 }), /were not MarkupContent/)
    malformed(() => toHover({ contents: { kind: 'html', value: '<b>' } }), /were not MarkupContent/)
  })

  it('refuses array members that are not MarkedStrings (60)', () => {
    malformed(() => toHover({ contents: [{ language: 'ts', value: 42 }] }), /not a MarkedString/)
    malformed(() => toHover({ contents: ['ok', null] }), /item 1 is not a MarkedString/)
  })

  it('refuses a hover without contents (61)', () => {
    malformed(() => toHover({}), /no contents/)
    malformed(() => toHover({ contents: null }), /no contents/)
  })

  it('refuses a malformed range instead of dropping it (62)', () => {
    malformed(() => toHover({ contents: 'x', range: { start: { line: 0, character: 0 } } }), /range/)
    malformed(() => toHover({ contents: 'x', range: null }), /range/)
    malformed(() => toHover({ contents: 'x', range: { start: { line: 0, character: -2 }, end: { line: 0, character: 1 } } }), /range/)
  })
})

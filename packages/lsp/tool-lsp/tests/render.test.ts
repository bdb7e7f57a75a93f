import { describe, expect, it, vi } from 'vitest'
import type { HoverValue, LocationEntry, LocationsValue } from '../src/output.ts'
import { renderDiagnostics } from '../src/diagnostics-render.ts'
import type { DiagnosticsValue } from '../src/diagnostics-value.ts'
import { INDEXING_NOTE, renderValue } from '../src/render.ts'
import { renderUri } from '../src/render-uri.ts'

// Reference checklist (reference/lsp.md §6.8), items 183–191, on our bounded value.

const WS = 'file:///w'
const LIMITS = { maxLocations: 100, maxResultChars: 16_000 }

function at(path: string, line: number, character: number, lineText?: string): LocationEntry {
  const uri = `${WS}/${path}`
  return {
    uri,
    path: renderUri(uri, WS),
    range: { start: { line, character }, end: { line, character: character + 1 } },
    ...(lineText === undefined ? {} : { lineText }),
  }
}

function located(locations: LocationEntry[], more: { total?: number; complete?: boolean } = {}): LocationsValue {
  const total = more.total ?? locations.length
  return { kind: 'locations', resolvedWorkspaceUri: WS, complete: more.complete ?? true, total, truncated: total > locations.length, locations }
}

function hovered(contents: string | null, more: { truncated?: boolean; complete?: boolean } = {}): HoverValue {
  return { kind: 'hover', complete: more.complete ?? true, hover: contents === null ? null : { contents }, truncated: more.truncated ?? false }
}

describe('rendering locations', () => {
  it('183: no locations', () => {
    expect(renderValue('findReferences', located([]), LIMITS)).toBe('No results.')
  })

  it('184: one-based start positions, one per line', () => {
    expect(renderValue('findReferences', located([at('a.ts', 0, 0), at('a.ts', 4, 2)]), LIMITS)).toBe('a.ts:1:1\na.ts:5:3')
  })

  it('groups by path in first-seen order, keeping the server order within a path', () => {
    const text = renderValue('findReferences', located([at('a.ts', 0, 0), at('b.ts', 1, 0), at('a.ts', 2, 0)]), LIMITS)
    expect(text).toBe('a.ts:1:1\na.ts:3:1\nb.ts:2:1')
  })

  it('joins the groups without Array.prototype.flat (a slow builtin on V8, once per locations call)', () => {
    const flat = vi.spyOn(Array.prototype, 'flat')
    try {
      const text = renderValue('findReferences', located([at('a.ts', 0, 0), at('b.ts', 1, 0), at('a.ts', 2, 0)]), LIMITS)
      expect(text).toBe('a.ts:1:1\na.ts:3:1\nb.ts:2:1')
      // 1 per render before.
      expect(flat).toHaveBeenCalledTimes(0)
    } finally {
      flat.mockRestore()
    }
  })

  it('appends the source line after two spaces when it is known', () => {
    const text = renderValue('findReferences', located([at('a.ts', 0, 6, 'const x = 1'), at('b.ts', 2, 0)]), LIMITS)
    expect(text).toBe('a.ts:1:7  const x = 1\nb.ts:3:1')
  })

  it("shows a line's text once for the locations on it, so a minified file's matches and their count fit", () => {
    const line = `var q=0;${'q=f(q,"pad");'.repeat(20)}`
    const text = renderValue('findReferences', located([at('min.js', 0, 4, line), at('min.js', 0, 8, line), at('min.js', 0, 10, line), at('b.ts', 3, 1, 'q()'), at('min.js', 2, 0, 'q')], { total: 60_001 }), LIMITS)
    // Every location repeated the line: 75 of 100 filled 16,000 characters and the count was cut off.
    expect(text).toBe(`min.js:1:5  ${line}\nmin.js:1:9\nmin.js:1:11\nmin.js:3:1  q\nb.ts:4:2  q()\n\u2026 59996 more locations omitted (limit 100).`)
  })

  it('185: counts what the limit left out', () => {
    const text = renderValue('findReferences', located([at('a.ts', 0, 0), at('a.ts', 1, 0)], { total: 5 }), { ...LIMITS, maxLocations: 2 })
    expect(text).toBe('a.ts:1:1\na.ts:2:1\n\u2026 3 more locations omitted (limit 2).')
  })

  it('186: one left out is singular', () => {
    const text = renderValue('findReferences', located([at('subject.ts', 0, 6)], { total: 2 }), { ...LIMITS, maxLocations: 1 })
    expect(text).toBe('subject.ts:1:7\n\u2026 1 more location omitted (limit 1).')
  })

  it('says when the server was still indexing', () => {
    expect(renderValue('findReferences', located([at('a.ts', 0, 0)], { complete: false }), LIMITS)).toBe(
      'a.ts:1:1\n(the language server was still indexing; results may be incomplete)',
    )
    expect(renderValue('findReferences', located([], { complete: false }), LIMITS)).toBe('No results.\n(the language server was still indexing; results may be incomplete)')
  })

  it('187: a huge URI is bounded to exactly the limit, with the notice', () => {
    const uri = `custom:${'x'.repeat(1_000_000)}`
    const value = located([{ uri, path: renderUri(uri, WS), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }])
    const text = renderValue('findReferences', value, { ...LIMITS, maxResultChars: 80 })
    expect(text).toHaveLength(80)
    expect(text).toContain('locations truncated')
    expect(text.endsWith('\n\u2026 locations truncated (limit 80 characters).')).toBe(true)
  })
})

describe('rendering hover', () => {
  it('188: no hover', () => {
    expect(renderValue('hover', hovered(null), LIMITS)).toBe('No hover information.')
  })

  it('189: contents verbatim', () => {
    const contents = '```typescript\nconst x: number\n```\nThe answer.'
    expect(renderValue('hover', hovered(contents), LIMITS)).toBe(contents)
  })

  it('190: bounded to the limit with the notice', () => {
    const text = renderValue('hover', hovered('a'.repeat(100)), { ...LIMITS, maxResultChars: 60 })
    expect(text).toHaveLength(60)
    expect(text.endsWith('hover truncated (limit 60 characters).')).toBe(true)
  })

  it('191: a limit shorter than the notice keeps the notice’s start', () => {
    const text = renderValue('hover', hovered('a'.repeat(100)), { ...LIMITS, maxResultChars: 10 })
    expect(text).toHaveLength(10)
    expect(text).toBe('\u2026 hover tr')
  })

  it('contents already cut in the value still carry the notice, though they fit', () => {
    const text = renderValue('hover', hovered('a'.repeat(60), { truncated: true }), { ...LIMITS, maxResultChars: 60 })
    expect(text).toHaveLength(60)
    expect(text).toMatch(/^a+\n\u2026 hover truncated \(limit 60 characters\)\.$/)
  })

  it('says when the server was still indexing', () => {
    expect(renderValue('hover', hovered('number', { complete: false }), LIMITS)).toBe('number\n(the language server was still indexing; results may be incomplete)')
  })

  it('counts characters (code points): an emoji at the cut is kept whole, and counts once', () => {
    const notice = '\n\u2026 hover truncated (limit 60 characters).'
    const keep = 60 - notice.length
    // Put an emoji across the cut point.
    const contents = `${'a'.repeat(keep - 1)}😀${'b'.repeat(50)}`
    const text = renderValue('hover', hovered(contents), { ...LIMITS, maxResultChars: 60 })
    expect(text).toBe(`${'a'.repeat(keep - 1)}😀${notice}`)
    expect([...text].length).toBe(60)
  })

  it('never parts a letter from its accent at the cut', () => {
    const notice = '\n\u2026 hover truncated (limit 60 characters).'
    const keep = 60 - notice.length
    // e + U+0301 across the cut point: the letter goes with its accent.
    const contents = `${'a'.repeat(keep - 1)}e\u0301${'b'.repeat(50)}`
    expect(renderValue('hover', hovered(contents), { ...LIMITS, maxResultChars: 60 })).toBe(`${'a'.repeat(keep - 1)}${notice}`)
  })
})

describe('a cut answer keeps the notes that say how far to trust it', () => {
  it('the indexing note follows the cut locations (a cut at the end dropped it first)', () => {
    const locations = Array.from({ length: 50 }, (_, index) => at('src/a.ts', index, 0, `const value${index} = compute(${index})`))
    const text = renderValue('findReferences', located(locations, { complete: false }), { ...LIMITS, maxResultChars: 600 })
    expect([...text].length).toBeLessThanOrEqual(600)
    expect(text.endsWith(`\n\u2026 locations truncated (limit 600 characters).\n${INDEXING_NOTE}`)).toBe(true)
    // Cut at a line end: no location is shown in part.
    for (const line of text.split('\n').slice(0, -2)) expect(line).toMatch(/^src\/a\.ts:\d+:1 {2}const value\d+ = compute\(\d+\)$/)
  })

  it("lsp_diagnostics shows a line's text once for the items on it (a minified file's 50 errors repeated it 50 times)", () => {
    const line = 'let v0: number = "x";let v1: number = "x";'
    const item = (line: number, character: number) => ({ severity: 'error' as const, range: { start: { line, character }, end: { line, character: character + 2 } }, message: 'Bad.', related: [], lineText: line === 0 ? 'let v0: number = "x";let v1: number = "x";' : 'x' })
    const value: DiagnosticsValue = { kind: 'diagnostics', path: 'bad.ts', uri: `${WS}/bad.ts`, complete: true, severity: 'error', counts: { error: 3, warning: 0, information: 0, hint: 0 }, total: 3, truncated: false, items: [item(0, 4), item(0, 25), item(1, 0)] }
    expect(renderDiagnostics(value, { maxDiagnostics: 100, maxResultChars: 16_000 })).toBe(
      ['bad.ts: 3 errors', 'bad.ts:1:5  error: Bad.', `    | ${line}`, 'bad.ts:1:26  error: Bad.', 'bad.ts:2:1  error: Bad.', '    | x'].join('\n'),
    )
  })

  it('lsp_diagnostics keeps "not shown, below" and "had not finished" after a cut listing', () => {
    const items = Array.from({ length: 40 }, (_, index) => ({ severity: 'error' as const, range: { start: { line: index, character: 0 }, end: { line: index, character: 1 } }, message: `Type 'string' is not assignable to type 'number' (${index}).`, related: [] }))
    const value: DiagnosticsValue = { kind: 'diagnostics', path: 'src/a.ts', uri: `${WS}/src/a.ts`, complete: false, severity: 'error', counts: { error: 40, warning: 3, information: 0, hint: 0 }, total: 40, truncated: false, items }
    const text = renderDiagnostics(value, { maxDiagnostics: 100, maxResultChars: 1000 })
    expect([...text].length).toBeLessThanOrEqual(1000)
    const lines = text.split('\n')
    expect(lines.slice(-3)).toEqual([
      '\u2026 diagnostics truncated (limit 1000 characters).',
      '(not shown, below error: 3 warnings; pass severity "warning" to see them)',
      '(the language server had not finished with this file: problems may be missing; ask again in a moment)',
    ])
  })
})

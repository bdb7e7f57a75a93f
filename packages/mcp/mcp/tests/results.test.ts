// [PURE] What the model sees of a result (reference mcp.md §7.3–7.5, checklist 49–69) and the result cap.
import { describe, expect, it } from 'vitest'
import { capResultText, classifyCallResult, projectContent } from '../src/results.ts'

describe('classifyCallResult', () => {
  it('keeps every block and structuredContent in the value', () => {
    const content = [{ type: 'text', text: 'a' }, 42, null, ['nested']]
    expect(classifyCallResult({ content })).toEqual({ kind: 'success', value: { content } })
    expect(classifyCallResult({ content, structuredContent: { answer: 42 } })).toEqual({ kind: 'success', value: { content, structuredContent: { answer: 42 } } })
  })

  it('treats isError: true as a tool error carrying the content', () => {
    expect(classifyCallResult({ isError: true, content: [{ type: 'text', text: 'nope' }] })).toEqual({ kind: 'tool-error', content: [{ type: 'text', text: 'nope' }] })
  })

  it.each([
    [{ toolResult: { key: 'value' } }, '{"key":"value"}'],
    [{ toolResult: 'legacy' }, '"legacy"'],
    [{}, '(no output)'],
  ])('turns a legacy answer %j into one text block %s', (raw, text) => {
    expect(classifyCallResult(raw)).toEqual({ kind: 'success', value: { content: [{ type: 'text', text }] } })
  })

  it('keeps structuredContent of a legacy answer, and isError of one fails', () => {
    expect(classifyCallResult({ toolResult: 'legacy', structuredContent: { answer: 42 } })).toEqual({
      kind: 'success',
      value: { content: [{ type: 'text', text: '"legacy"' }], structuredContent: { answer: 42 } },
    })
    expect(classifyCallResult({ toolResult: { reason: 'nope' }, isError: true })).toEqual({ kind: 'tool-error', content: [{ type: 'text', text: '{"reason":"nope"}' }] })
  })
})

describe('projectContent', () => {
  it('joins text blocks in order', () => {
    expect(projectContent('t', [{ type: 'text', text: 'line1' }, { type: 'text', text: 'line2' }])).toBe('line1\nline2')
  })

  it('gives every non-text block one line in its place', () => {
    const lines = projectContent('t', [
      { type: 'text', text: 'before' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'audio', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'x' } },
      { type: 'resource_link', name: 'Design', uri: 'https://example.test/design' },
      { type: 'resource_link', uri: 'https://example.test/nameless' },
      { type: 'video', data: 'x' },
      42,
      null,
      ['nested'],
      { type: 'text', text: 'after' },
    ]).split('\n')
    expect(lines).toEqual([
      'before',
      '[image: image/png, 8 bytes; the data is kept in the result value, not shown here]',
      '[audio: unknown media type, 3 bytes; the data is kept in the result value, not shown here]',
      '[embedded resource: file:///a.txt, text/plain; the data is kept in the result value, not shown here]',
      'Resource link: Design (https://example.test/design)',
      '[unusable resource link: its name or URI is missing]',
      '[unsupported MCP content block type "video"; the data is kept in the result value, not shown here]',
      '[unsupported MCP content block: not an object]',
      '[unsupported MCP content block: not an object]',
      '[unsupported MCP content block: not an object]',
      'after',
    ])
  })

  it('says so when nothing is visible, and shows structured content when there is only that', () => {
    expect(projectContent('raw.name', [])).toBe('(raw.name returned no model-visible content)')
    expect(projectContent('raw.name', [{ type: 'text' }])).toBe('(raw.name returned no model-visible content)')
    expect(projectContent('t', [], { answer: 42 })).toBe('{\n  "answer": 42\n}')
  })
})

describe('capResultText', () => {
  it('leaves text within the cap alone', () => {
    expect(capResultText('short', 5)).toBe('short')
  })

  it('cuts to the cap with a note saying how much was shown', () => {
    const capped = capResultText('x'.repeat(10_000), 500)
    expect(capped.length).toBeLessThanOrEqual(500)
    expect(capped.length).toBeGreaterThan(495)
    // The note every cut text for the model ends with (dsh-core's capText, as a skill's body).
    expect(capped).toMatch(/\n\n\[Cut at maxResultChars 500: \d+ characters \(0 of 1 lines\) of the result shown; the rest, from line 1, is in the tool's value\.\]$/)
    const shown = Number(/: (\d+) characters/.exec(capped)![1])
    expect(capped.startsWith('x'.repeat(shown))).toBe(true)
  })

  it('counts characters (code points) as a skill body is counted, not UTF-16 units, and never parts a letter from its accent', () => {
    expect(capResultText('😀'.repeat(500), 600)).toBe('😀'.repeat(500))
    for (const max of [300, 301]) expect(capResultText('e\u0301'.repeat(1000), max).split('\n\n[')[0]!.endsWith('e\u0301')).toBe(true)
  })

  it('never leaves half a surrogate pair', () => {
    const text = '😀'.repeat(500)
    for (const max of [300, 301, 302]) {
      const capped = capResultText(text, max)
      expect([...capped].length).toBeLessThanOrEqual(max)
      expect(capped.split('\n')[0]).toMatch(/^(\uD83D\uDE00)+$/)
    }
  })

  it('returns a cut note when even the note does not fit', () => {
    expect(capResultText('x'.repeat(100), 10)).toHaveLength(10)
  })
})

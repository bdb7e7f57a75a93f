import { MAX_PROVIDER_TEXT, providerText, sliceCodePoints } from 'dsh-web'
import { describe, expect, it } from 'vitest'

describe('providerText', () => {
  it('redacts every secret (longest first), makes one line, and bounds the length', () => {
    expect(providerText('bad key sk-abc\nkey sk-abcdef', ['sk-abc', 'sk-abcdef', undefined, ''])).toBe('bad key [redacted] key [redacted]')
    const long = providerText(`${'x'.repeat(1000)}`)
    expect(long.length).toBe(MAX_PROVIDER_TEXT)
    expect(long.endsWith('…')).toBe(true)
    expect(providerText('  a\r\n\tb  ')).toBe('a b')
  })

  it('counts characters (code points) and cuts between whole ones: an emoji counts once, a letter keeps its accent', () => {
    expect(providerText('😀'.repeat(MAX_PROVIDER_TEXT))).toBe('😀'.repeat(MAX_PROVIDER_TEXT))
    expect(providerText('😀'.repeat(MAX_PROVIDER_TEXT + 1))).toBe(`${'😀'.repeat(MAX_PROVIDER_TEXT - 1)}…`)
    // The first 299 UTF-16 units of "ab" + e\u0301 … ended on an "e" without its accent.
    expect(providerText(`ab${'e\u0301'.repeat(200)}`)).toBe(`ab${'e\u0301'.repeat(148)}…`)
    expect(sliceCodePoints('ab😀c', 3)).toBe('ab😀')
  })
})

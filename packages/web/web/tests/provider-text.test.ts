import { MAX_PROVIDER_TEXT, providerText } from 'dsh-web'
import { describe, expect, it } from 'vitest'

describe('providerText', () => {
  it('redacts every secret (longest first), makes one line, and bounds the length', () => {
    expect(providerText('bad key sk-abc\nkey sk-abcdef', ['sk-abc', 'sk-abcdef', undefined, ''])).toBe('bad key [redacted] key [redacted]')
    const long = providerText(`${'x'.repeat(1000)}`)
    expect(long.length).toBe(MAX_PROVIDER_TEXT)
    expect(long.endsWith('…')).toBe(true)
    expect(providerText('  a\r\n\tb  ')).toBe('a b')
  })
})

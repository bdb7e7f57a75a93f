import { describe, expect, it } from 'vitest'
import { capSkillContent } from '../src/cap.ts'

describe('capSkillContent', () => {
  it('keeps a body within the limit whole', () => {
    expect(capSkillContent({ content: 'short body', provider: 'p', path: '/s/SKILL.md' }, 1000)).toBe('short body')
  })

  it('cuts one line longer than the limit at a grapheme boundary and says the rest starts in that line', () => {
    const content = 'e\u0301'.repeat(3000)
    const capped = capSkillContent({ content, provider: 'remote' }, 1000)
    const [shown, note] = capped.split('\n\n[')
    expect([...capped].length).toBeLessThanOrEqual(1000)
    // Never an accent without its letter.
    expect(shown!.endsWith('e\u0301')).toBe(true)
    expect(note).toBe(`Cut at loadMaxChars 1000: ${[...shown!].length} characters (0 of 1 lines) of the skill's instructions shown; the rest, from line 1, is not shown (the "remote" skill provider holds it).]`)
  })
})

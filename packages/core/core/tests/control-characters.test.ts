import { describe, expect, it } from 'vitest'
import { BIDI_CONTROL_CLASS, CONTROL_CHARACTER_CLASS } from '../src/index.ts'

// One list of the characters that act instead of showing. dsh-web kept its own bidi list (with the
// Arabic letter mark, U+061C) beside dsh-core's, which lacked it: a directory name or a server's
// text with U+061C passed dsh's terminal and shell-quoting checks. Checked against Unicode's own
// property over every code point, not against a copy of the list.

/** Every code point `pattern` matches. */
function matched(pattern: RegExp): number[] {
  const found: number[] = []
  for (let point = 0; point <= 0x10ffff; point++) {
    if (point >= 0xd800 && point <= 0xdfff) continue
    if (pattern.test(String.fromCodePoint(point))) found.push(point)
  }
  return found
}

describe('control character classes', () => {
  it('BIDI_CONTROL_CLASS is exactly Unicode\'s Bidi_Control, and CONTROL_CHARACTER_CLASS is it plus C0, DEL and C1', () => {
    const bidi = matched(/^\p{Bidi_Control}$/u)
    expect(bidi).toContain(0x061c)
    expect(matched(new RegExp(`^${BIDI_CONTROL_CLASS}$`))).toEqual(bidi)
    const c0c1 = [...Array(0x20).keys(), ...Array.from({ length: 0x21 }, (_, index) => 0x7f + index)]
    expect(matched(new RegExp(`^${CONTROL_CHARACTER_CLASS}$`))).toEqual([...c0c1, ...bidi].sort((a, b) => a - b))
  })
})

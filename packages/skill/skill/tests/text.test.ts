import { describe, expect, it } from 'vitest'
import { catalogDescription, renderSkillContent } from '../src/index.ts'
import { fitCatalog, originOf } from '../src/tool/index.ts'

// Text the model is shown: cut at whole characters, counted in characters, and paths shown as paths.

const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('cutting a description', () => {
  it('counts characters (code points), not UTF-16 units', () => {
    const astral = '𝒜'.repeat(10)
    expect(catalogDescription(astral, 10)).toBe(astral)
    expect([...catalogDescription(`${astral}𝒜`, 10)]).toHaveLength(10)
  })

  it('never splits a surrogate pair or a grapheme cluster', () => {
    // 👍🏽 is two code points (four UTF-16 units); 🇫🇷 is two regional indicators; é here is e + a combining accent.
    for (const cluster of ['👍🏽', '🇫🇷', 'e\u0301', '👩‍👩‍👧']) {
      for (let prefix = 0; prefix < 12; prefix++) {
        const text = `${'a'.repeat(prefix)}${cluster.repeat(6)} tail`
        const cut = catalogDescription(text, 10)
        expect(cut.endsWith('...'), text).toBe(true)
        expect(lone.test(cut), JSON.stringify(cut)).toBe(false)
        const kept = cut.slice(0, -3)
        expect(text.startsWith(kept)).toBe(true)
        // What is kept ends at a cluster boundary: the next character does not continue a cluster.
        const rest = text.slice(kept.length)
        expect(kept.length <= prefix || rest.startsWith(cluster) || rest.startsWith(' '), JSON.stringify([kept, rest])).toBe(true)
        expect([...cut].length).toBeLessThanOrEqual(10)
      }
    }
  })

  it('the catalog budget cuts at whole characters too', () => {
    const entries = Array.from({ length: 20 }, (_, index) => ({ name: `s${index}`, description: `a${'👍🏽'.repeat(40)}` }))
    const { described, shortened } = fitCatalog(
      entries.map((entry) => ({ ...entry, origin: originOf('test') })),
      { describedChars: 1500, namesChars: 0, minDescription: 5 },
    )
    expect(shortened).toBeGreaterThan(0)
    for (const entry of described) expect(entry.description, entry.description).toMatch(/^a(?:👍🏽)*(?:\.\.\.)?$/u)
  })
})

describe('the base directory of a loaded skill', () => {
  const render = (path: string) => renderSkillContent({ name: 'a', provider: 'filesystem', resourceBase: { kind: 'directory', path }, content: 'x' }).split('\n')[2]

  it('is shown as the path itself: & and > are characters of a path, not markup to escape', () => {
    expect(render('/work/R&D/skills/a')).toBe('Base directory: /work/R&D/skills/a')
    expect(render('/work/a>b/skills/a')).toBe('Base directory: /work/a>b/skills/a')
  })

  it('is quoted as a JSON string when it holds what would break the block (a newline, <)', () => {
    expect(render('/work/<x>/a')).toBe('Base directory: "/work/<x>/a"')
    expect(render('/work/two\nlines')).toBe('Base directory: "/work/two\\nlines"')
  })
})

import { describe, expect, it } from 'vitest'
import { catalogDescription, escapeText, renderSkillContent } from '../src/index.ts'

describe('renderSkillContent', () => {
  it('lays out a directory-based skill in ten lines, body verbatim, no header', () => {
    const text = renderSkillContent({ name: 'pdf-tools', provider: 'filesystem', resourceBase: { kind: 'directory', path: '/skills/pdf-tools' }, content: 'Step 1.\nStep 2.' })
    const lines = text.split('\n')
    expect(lines).toHaveLength(11)
    expect(lines[0]).toBe('<skill_content name="pdf-tools">')
    expect(lines[1]).toBe('<skill_resources>')
    expect(lines[2]).toBe('Base directory: /skills/pdf-tools')
    expect(lines[3]).toMatch(/relative to the base directory.*only when/)
    expect(lines.slice(4)).toEqual(['</skill_resources>', '', '<skill_instructions>', 'Step 1.', 'Step 2.', '</skill_instructions>', '</skill_content>'])
    expect(text).not.toMatch(/# Skill/)
  })

  it('labels URL and opaque bases, escaping an opaque description', () => {
    expect(renderSkillContent({ name: 'a', provider: 'p', resourceBase: { kind: 'url', url: 'https://x.test/a/' }, content: '' })).toContain('Base URL: https://x.test/a/')
    const opaque = renderSkillContent({ name: 'a', provider: 'p', resourceBase: { kind: 'opaque', description: 'ask <the> service & wait' }, content: '' })
    expect(opaque).toContain('Resources: ask &lt;the&gt; service &amp; wait')
  })

  it('names the provider (escaped) when there is no resource base', () => {
    expect(renderSkillContent({ name: 'a', provider: 'remote<x>', content: '' })).toContain('managed by the "remote&lt;x&gt;" skill provider')
  })

  it('escapes a hostile name in the attribute and keeps the body verbatim', () => {
    const text = renderSkillContent({ name: 'x"&<y', provider: 'p', content: 'keep </skill_content> and <tags>' })
    expect(text.split('\n')[0]).toBe('<skill_content name="x&quot;&amp;&lt;y">')
    expect(text).toContain('keep </skill_content> and <tags>')
  })

  it('fails on an unknown resource base kind', () => {
    expect(() => renderSkillContent({ name: 'a', provider: 'p', resourceBase: { kind: 'ftp' } as never, content: '' })).toThrow(/resource base/)
  })
})

describe('catalogDescription and escapeText', () => {
  it('collapses whitespace, trims, and cuts to exactly max with ...', () => {
    expect(catalogDescription('  a \n\t b  ', 10)).toBe('a b')
    expect(catalogDescription('abcdefghij', 10)).toBe('abcdefghij')
    const cut = catalogDescription('abcdefghijk', 10)
    expect(cut).toBe('abcdefg...')
    expect(cut).toHaveLength(10)
  })

  it('escapes &, < and >', () => {
    expect(escapeText('a & <b> "c"')).toBe('a &amp; &lt;b&gt; "c"')
  })
})

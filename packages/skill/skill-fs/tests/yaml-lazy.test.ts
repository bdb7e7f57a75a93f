import { describe, expect, it } from 'vitest'
import { holdsYamlParser, modulesLoadedBy } from '../../../../test-support/module-log.ts'

// Issue 27 item 5: the yaml parser was the largest code `dsh tools` compiled (≈ 270 KB of the
// ≈ 1.2 MB bundled). skill-fs imports it on the first frontmatter it has to parse; a catalog with
// no skill file to parse never loads it.

describe('dsh-skill-fs', () => {
  it('loads no YAML parser at import; the first frontmatter parsed loads it', async () => {
    const [imported, parsing] = await Promise.all([
      modulesLoadedBy("await import('dsh-skill-fs')\n"),
      modulesLoadedBy("const { parseFrontmatter } = await import('dsh-skill-fs')\nconst parsed = await parseFrontmatter('name: pdf\\ndescription: Reads PDFs.')\nif (!parsed.ok || parsed.data.name !== 'pdf') throw new Error(JSON.stringify(parsed))\n"),
    ])
    expect(imported.some((url) => /\/skill\/skill-fs\/|\/dsh-skill-fs\//.test(url))).toBe(true)
    expect(imported.filter(holdsYamlParser)).toEqual([])
    expect(parsing.filter(holdsYamlParser)).not.toEqual([])
  })
})

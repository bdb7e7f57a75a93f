import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { embeddingSnippets, readmeClientEntries } from '../snippets.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

// `pnpm check:pack` runs these in a fresh install; here only that every block is one it can run.
describe('the documentation the pack check runs', () => {
  it('every code block of docs/embedding.md is an install line, a named program or file, or a typed fragment', () => {
    const snippets = embeddingSnippets(ROOT)
    expect(snippets.filter((snippet) => snippet.kind === 'program').map((snippet) => 'name' in snippet && snippet.name)).toEqual(['hover.mjs', 'boot.mjs'])
    expect(snippets.filter((snippet) => snippet.kind === 'file').map((snippet) => 'name' in snippet && snippet.name)).toEqual(['harness.yml', 'local.yml'])
    expect(snippets.flatMap((snippet) => (snippet.kind === 'install' ? snippet.packages : []))).toEqual(expect.arrayContaining(['cordis', 'dsh-core', 'typescript', 'pyright']))
  })

  it("the README's MCP client entries include one for an npm installation", () => {
    const entries = readmeClientEntries(ROOT)
    expect(entries.map((entry) => entry.command)).toEqual(['node', 'node', '/home/me/harness/node_modules/.bin/dsh'])
    for (const entry of entries) expect(entry.args).toEqual(expect.arrayContaining(['serve', '--cwd', '/home/me/project']))
  })
})

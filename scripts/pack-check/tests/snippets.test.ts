import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { embeddingPresets, embeddingSnippets, readmeClientEntries } from '../snippets.ts'

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

  it('each preset of docs/embedding.md passes dsh status (issue 33 item 11), as the pack check runs it on the installed tarballs', () => {
    const presets = embeddingPresets(embeddingSnippets(ROOT))
    expect(presets.map((preset) => preset.name)).toEqual(['harness.yml'])
    const dir = mkdtempSync(join(tmpdir(), 'dsh-embedding-preset-'))
    try {
      for (const preset of presets) {
        writeFileSync(join(dir, preset.name), preset.block.text)
        const status = spawnSync(process.execPath, [join(ROOT, 'packages/cli/cli/bin/dsh.mjs'), 'status', '--preset', join(dir, preset.name), '--json', '--cwd', dir], { encoding: 'utf8', env: { ...process.env, DSH_HOME: dir }, timeout: 120_000 })
        expect(status.status, `${preset.block.where}: ${status.stderr}`).toBe(0)
        expect(JSON.parse(status.stdout).capabilities.length).toBeGreaterThan(0)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the package table names every peer each package.json declares, and the Web packages have an install line', () => {
    const doc = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8')
    for (const [name, dir] of Object.entries({ 'dsh-cli': 'packages/cli/cli', 'dsh-mcp': 'packages/mcp/mcp', 'dsh-skill-fs': 'packages/skill/skill-fs', 'dsh-tool-web': 'packages/web/tool-web' })) {
      const peers = Object.keys((JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> }).peerDependencies ?? {})
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))!
      const listed = row.split('|').at(-2)!
      for (const peer of peers) expect(listed, `${name}'s peers`).toContain(`\`${peer}\``)
    }
    const installed = embeddingSnippets(ROOT).flatMap((snippet) => (snippet.kind === 'install' ? snippet.packages : []))
    expect(installed).toEqual(expect.arrayContaining(['dsh-web', 'dsh-web-fetch-http', 'dsh-tool-web']))
  })
})

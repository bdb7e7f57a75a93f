import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Host, ToolResult } from 'dsh-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootCoding, callLsp, copyWorkspace, serversFor, valueOf } from './harness.ts'

// Every installable server of the catalog, through presets/overlays/languages.yml on the coding
// preset and the lsp tool: hover and definition on a fixture of its language, with non-ASCII text
// (an umlaut and an astral emoji, two UTF-16 units) before the symbol on the same line. The servers
// are devDependencies (npm) or Debian packages that .ci/run installs; a missing one fails here.
const LANGUAGES_OVERLAY = fileURLToPath(new URL('../../../../../presets/overlays/languages.yml', import.meta.url))

interface Ask {
  readonly file: string
  readonly line: number
  /** Asked at its last use on the line, the one after the non-ASCII text. */
  readonly symbol: string
}

interface Case {
  readonly server: string
  readonly hover: Ask & { readonly expect: string }
  /** `path:line` of the answer (one-based), or the code of a server that has no definitions. */
  readonly definition: Ask & ({ readonly expect: string } | { readonly code: string })
}

const CASES: readonly Case[] = [
  {
    server: 'go',
    hover: { file: 'main.go', line: 4, symbol: 'Area', expect: 'func Area(größe int) int' },
    definition: { file: 'main.go', line: 4, symbol: 'Area', expect: 'shapes.go:4' },
  },
  {
    server: 'c',
    hover: { file: 'main.c', line: 3, symbol: 'area', expect: 'int area(int side)' },
    definition: { file: 'main.c', line: 3, symbol: 'area', expect: 'shapes.h:4' },
  },
  {
    server: 'shell',
    hover: { file: 'main.sh', line: 4, symbol: 'trim', expect: 'Prints its arguments without surrounding whitespace' },
    definition: { file: 'main.sh', line: 4, symbol: 'trim', expect: 'lib/text.sh:3' },
  },
  {
    server: 'yaml',
    hover: { file: 'service.yaml', line: 5, symbol: 'größe', expect: 'replicas: 2' },
    definition: { file: 'service.yaml', line: 5, symbol: 'größe', expect: 'service.yaml:3' },
  },
  {
    server: 'json',
    hover: { file: 'data.json', line: 1, symbol: 'größe', expect: 'The size in metres' },
    definition: { file: 'data.json', line: 1, symbol: 'größe', code: 'LSP_UNSUPPORTED_OPERATION' },
  },
  {
    server: 'css',
    hover: { file: 'style.css', line: 2, symbol: 'margin', expect: 'margin' },
    definition: { file: 'style.css', line: 2, symbol: '--größe', expect: 'style.css:1' },
  },
  {
    server: 'html',
    hover: { file: 'page.html', line: 3, symbol: 'area', expect: 'function area(side: any): number' },
    definition: { file: 'page.html', line: 3, symbol: 'area', expect: 'page.html:3' },
  },
  {
    server: 'dockerfile',
    hover: { file: 'app.dockerfile', line: 3, symbol: 'VARIANT', expect: 'bookworm' },
    definition: { file: 'app.dockerfile', line: 3, symbol: 'VARIANT', expect: 'app.dockerfile:2' },
  },
]

describe('the server catalog (presets/overlays/languages.yml, real servers)', () => {
  const workspace = copyWorkspace('catalog')
  const dirOf = (server: string) => join(workspace.dir, server)
  let host: Host | undefined
  beforeAll(async () => {
    host = await bootCoding(readFileSync(LANGUAGES_OVERLAY, 'utf8'))
  })
  afterAll(async () => {
    await host?.stop()
    const roots = ['go-modules/alpha', 'go-modules/beta', 'python-projects/alpha', 'python-projects/beta']
    for (const dir of [workspace.dir, ...CASES.map(({ server }) => dirOf(server)), ...roots.map(dirOf)]) expect(await serversFor(dir)).toEqual([])
    workspace.remove()
  })

  /** The one-based position of the last use of `symbol` on the line (UTF-16 columns, as the tool counts). */
  function ask(server: string, operation: 'hover' | 'goToDefinition', { file, line, symbol }: Ask): Promise<ToolResult> {
    const text = readFileSync(join(dirOf(server), file), 'utf8').split('\n')[line - 1]!
    expect(text.slice(0, text.lastIndexOf(symbol))).toMatch(/[^\x00-\x7f]/)
    const session = host!.app.sessions.create({ cwd: dirOf(server) })
    return callLsp(host!, session, { operation, filePath: file, line, character: text.lastIndexOf(symbol) + 1 })
  }

  describe.each(CASES)('$server', ({ server, hover, definition }) => {
    it('hovers', async () => {
      const value = valueOf(await ask(server, 'hover', hover))
      expect(value.hover?.contents).toContain(hover.expect)
    })

    it('goes to the definition', async () => {
      const result = await ask(server, 'goToDefinition', definition)
      if ('code' in definition) {
        expect(result.isError && result.error.code).toBe(definition.code)
        return
      }
      const value = valueOf(result)
      expect(value.locations.map((location: any) => `${location.path}:${location.range.start.line + 1}`)).toContain(definition.expect)
    })
  })

  // Files a language knows by name, with no extension to route on: the catalog rows list them in
  // filenameToLanguage (a file named just `Dockerfile` used to be LSP_UNAVAILABLE).
  describe('files known by name', () => {
    it('a file named Dockerfile reaches docker-langserver', async () => {
      const at = { file: 'Dockerfile', line: 3, symbol: 'RELEASE' }
      expect(valueOf(await ask('dockerfile', 'hover', at)).hover?.contents).toContain('stable')
      const value = valueOf(await ask('dockerfile', 'goToDefinition', at))
      expect(value.locations.map((location: any) => `${location.path}:${location.range.start.line + 1}`)).toContain('Dockerfile:2')
    })

    it('a .bashrc reaches bash-language-server, which follows its source line', async () => {
      const at = { file: '.bashrc', line: 4, symbol: 'trim' }
      expect(valueOf(await ask('shell', 'hover', at)).hover?.contents).toContain('Prints its arguments without surrounding whitespace')
      const value = valueOf(await ask('shell', 'goToDefinition', at))
      expect(value.locations.map((location: any) => `${location.path}:${location.range.start.line + 1}`)).toContain('lib/text.sh:3')
    })
  })

  /** `path:line` of each location a goToDefinition of `symbol` (its last use on `line`) answers, in a session at `cwd`. */
  async function definitionsOf(cwd: string, filePath: string, line: number, symbol: string): Promise<string[]> {
    const text = readFileSync(join(cwd, filePath), 'utf8').split('\n')[line - 1]!
    const session = host!.app.sessions.create({ cwd })
    const value = valueOf(await callLsp(host!, session, { operation: 'goToDefinition', filePath, line, character: text.lastIndexOf(symbol) + 1 }))
    return value.locations.map((location: any) => `${location.path}:${location.range.start.line + 1}`)
  }

  describe('root markers', () => {
    it('two Go modules side by side: each file is served by a gopls rooted at its go.mod, and dsh status names both roots', async () => {
      const modules = join(workspace.dir, 'go-modules')
      expect(await definitionsOf(modules, 'alpha/main.go', 4, 'Area')).toEqual(['alpha/shapes.go:4'])
      expect(await definitionsOf(modules, 'beta/main.go', 4, 'Volume')).toEqual(['beta/shapes.go:4'])
      const rows = await host!.app.readiness.report()
      const detail = rows.find((row) => row.surface === 'lsp' && row.id === 'go')?.detail
      expect(detail).toContain(`root ${join(modules, 'beta')} (go.mod)`)
      // The other roots follow in pool order: the earlier `go` cases' server is running too.
      const [, others] = detail!.split('; also running: ')
      expect(others).toContain(`${join(modules, 'alpha')} (go.mod)`)
    })

    it('two Python projects with src layouts side by side: pyright rooted at each pyproject.toml resolves its imports', async () => {
      const projects = join(workspace.dir, 'python-projects')
      expect(await definitionsOf(projects, 'alpha/tests/test_shapes.py', 3, 'area')).toEqual(['alpha/src/alpha_geo/shapes.py:1'])
      expect(await definitionsOf(projects, 'beta/tests/test_shapes.py', 3, 'area')).toEqual(['beta/src/beta_geo/shapes.py:1'])
    })
  })

  it('names the server in dsh status once it answered', async () => {
    const rows = await host!.app.readiness.report()
    const row = (id: string) => rows.find((candidate) => candidate.surface === 'lsp' && candidate.id === id)
    expect(row('go')).toMatchObject({ state: 'ready', detail: expect.stringMatching(/^gopls.*\[\.go\]$/) })
    expect(row('c')).toMatchObject({ state: 'ready', detail: expect.stringMatching(/^clangd/) })
    expect(row('dockerfile')?.detail).toMatch(/\[\.dockerfile Dockerfile Dockerfile\.\* Containerfile Containerfile\.\*\]$/)
  })
})

import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, type Host } from 'dsh-core'
import { descendants, dsh, expectGone, json, killRunning, ROOT } from './helpers.ts'

const PROJECT = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')
const OVERLAY = join(ROOT, 'presets', 'overlays', 'dsh-serve.yml')
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }

afterEach(() => killRunning())


describe('dogfood: dsh serve mounted in our own MCP bridge', () => {
  it('mcp__dsh__lsp answers a hover through two layers (dsh call)', async () => {
    const run = await dsh(['call', 'mcp__dsh__lsp', JSON.stringify(HOVER), '--json', '--config', OVERLAY], { cwd: PROJECT })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(json(run).content)).toContain('const circle: Circle')
  })

  it('in one host: the inner dsh and its language server are gone after stop()', async () => {
    const cwd = process.cwd()
    process.chdir(PROJECT)
    let host: Host | undefined
    try {
      host = await bootPreset({ preset: join(ROOT, 'presets', 'coding.yml'), overlays: [OVERLAY] })
      const session = host.app.sessions.create({ cwd: PROJECT })
      const result = await host.app.tools.execute({ name: 'mcp__dsh__lsp', arguments: HOVER, session })
      expect(result.isError, JSON.stringify(result)).toBe(false)
      const inner = descendants(process.pid)
      expect(inner.length).toBeGreaterThanOrEqual(2)
      await host.stop()
      host = undefined
      for (const pid of inner) {
        await expectGone(pid)
      }
    } finally {
      await host?.stop()
      process.chdir(cwd)
    }
  })
})

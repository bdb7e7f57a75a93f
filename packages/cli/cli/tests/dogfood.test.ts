import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, type Host } from 'dsh-core'
import { descendants, dshIn, expectGone, json, killRunning, PATIENT_LSP_OVERLAY, removeTempDirs, ROOT, tempDir } from './helpers.ts'

const PROJECT = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')
const OVERLAY = join(ROOT, 'presets', 'overlays', 'dsh-serve.yml')
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

/**
 * The shipped overlay, with the inner dsh given the patient language-server budgets: a cold start
 * on a loaded machine is not under test here, and the outer call waits as long as the inner one.
 */
async function overlays(): Promise<string[]> {
  const patient = join(await tempDir(), 'patient-inner.yml')
  await writeFile(
    patient,
    `- id: mcp-dsh\n  config: { args: [serve, --preset, coding, --config, ${JSON.stringify(PATIENT_LSP_OVERLAY)}], toolCallTimeoutMs: 240000 }\n`,
  )
  return [OVERLAY, patient]
}


describe('dogfood: dsh serve mounted in our own MCP bridge', () => {
  it('mcp__dsh__lsp answers a hover through two layers (dsh call)', async () => {
    // The outer `dsh call` in the worker (its process is not under test); the inner dsh serve is a real process.
    const run = await dshIn(['call', 'mcp__dsh__lsp', JSON.stringify(HOVER), '--json', ...(await overlays()).flatMap((file) => ['--config', file])], { cwd: PROJECT })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(json(run).content)).toContain('const circle: Circle')
  })

  it('in one host: the inner dsh and its language server are gone after stop()', async () => {
    const cwd = process.cwd()
    process.chdir(PROJECT)
    let host: Host | undefined
    try {
      host = await bootPreset({ preset: join(ROOT, 'presets', 'coding.yml'), overlays: await overlays() })
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

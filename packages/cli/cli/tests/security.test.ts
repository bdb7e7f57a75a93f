import { chmod, cp, mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dsh, json, killRunning, PATIENT_LSP_OVERLAY, removeTempDirs, ROOT, tempDir } from './helpers.ts'

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

const TS_PROJECT = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

describe('an inspected workspace cannot plant the language server', () => {
  it('a relative PATH entry pointing into the workspace is never searched; the pinned server answers', async () => {
    const project = await tempDir()
    await cp(TS_PROJECT, project, { recursive: true })
    const marker = join(project, 'planted-server-ran')
    const bin = join(project, 'node_modules', '.bin')
    await mkdir(bin, { recursive: true })
    const planted = join(bin, 'typescript-language-server')
    await writeFile(planted, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`)
    await chmod(planted, 0o755)

    const run = await dsh(['call', 'lsp', JSON.stringify({ operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }), '--json', '--cwd', project, '--config', PATIENT_LSP_OVERLAY], {
      cwd: project,
      env: { PATH: `./node_modules/.bin:${process.env.PATH ?? ''}` },
    })
    expect(await exists(marker)).toBe(false)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(json(run).value)).toContain('Circle')
  })

  it("nor does the language server's own lookup of `node` (its launcher's `env node`) find the workspace's", async () => {
    const project = await tempDir()
    await cp(TS_PROJECT, project, { recursive: true })
    const marker = join(project, 'planted-node-ran')
    const planted = `#!/bin/sh\ntouch '${marker}'\nexit 1\n`
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true })
    for (const file of [join(project, 'node'), join(project, 'node_modules', '.bin', 'node')]) await writeFile(file, planted, { mode: 0o755 })

    const run = await dsh(['call', 'lsp', JSON.stringify({ operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }), '--json', '--cwd', project, '--config', PATIENT_LSP_OVERLAY], {
      cwd: project,
      env: { PATH: `.:./node_modules/.bin:${process.env.PATH ?? ''}` },
    })
    expect(await exists(marker)).toBe(false)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(json(run).value)).toContain('Circle')
  })
})

import { cp, mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dsh, json, killRunning, PATIENT_LSP_OVERLAY, removeTempDirs, ROOT, tempDir, type Run } from './helpers.ts'

const TS_PROJECT = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/**
 * One workspace plants both: a `typescript-language-server` in `./node_modules/.bin` and a `node`
 * in `.` and `./node_modules/.bin`, each touching its own marker, and one dsh hovers through the
 * pinned server with both relative entries on PATH. Both cases check the same run: a planted server
 * that ran touches the first marker, a planted `node` the second (before, each case started its own
 * dsh and tsserver on a copy of the project).
 */
let planted: Promise<{ serverRan: boolean; nodeRan: boolean; run: Run }> | undefined
function plantedRun() {
  planted ??= (async () => {
    const project = await tempDir()
    await cp(TS_PROJECT, project, { recursive: true })
    const bin = join(project, 'node_modules', '.bin')
    await mkdir(bin, { recursive: true })
    const [serverMarker, nodeMarker] = [join(project, 'planted-server-ran'), join(project, 'planted-node-ran')]
    await writeFile(join(bin, 'typescript-language-server'), `#!/bin/sh\ntouch '${serverMarker}'\nexit 1\n`, { mode: 0o755 })
    for (const file of [join(project, 'node'), join(bin, 'node')]) await writeFile(file, `#!/bin/sh\ntouch '${nodeMarker}'\nexit 1\n`, { mode: 0o755 })
    const run = await dsh(['call', 'lsp', JSON.stringify({ operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }), '--json', '--cwd', project, '--config', PATIENT_LSP_OVERLAY], {
      cwd: project,
      env: { PATH: `.:./node_modules/.bin:${process.env.PATH ?? ''}` },
    })
    return { serverRan: await exists(serverMarker), nodeRan: await exists(nodeMarker), run }
  })()
  return planted
}

afterAll(async () => {
  await killRunning()
  await removeTempDirs()
})

describe('an inspected workspace cannot plant the language server', () => {
  it('a relative PATH entry pointing into the workspace is never searched; the pinned server answers', async () => {
    const { serverRan, run } = await plantedRun()
    expect(serverRan).toBe(false)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(json(run).value)).toContain('Circle')
  })

  it("nor does the language server's own lookup of `node` (its launcher's `env node`) find the workspace's", async () => {
    const { nodeRan, run } = await plantedRun()
    expect(nodeRan).toBe(false)
    expect(run.code, run.stderr).toBe(0)
  })
})

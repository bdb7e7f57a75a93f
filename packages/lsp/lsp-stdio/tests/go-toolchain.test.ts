// A Go ≥ 1.21 `go` command under GOTOOLCHAIN=auto (its default) downloads and runs the toolchain a
// repository's go.mod or go.work names (`toolchain go1.X`): network access and a binary the
// repository chose. gopls runs `go` as soon as it loads a workspace, so in a workspace its user does
// not trust the catalog's go row starts gopls with GOTOOLCHAIN=local. The Go here (1.19) ignores the
// variable, so what is checked is what every `go` that gopls runs is given: a `go` first on PATH
// records its GOTOOLCHAIN, then runs the real one.
import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, killRunning, removeTempDirs, tempDir } from '../../../cli/cli/tests/helpers.ts'
import { trustIn } from '../../../../test-support/trust.ts'

// What the host gives the server does not depend on dsh being a process: dsh runs in this worker
// (dshIn), without a node start and the bundle's load per run.
afterEach(async () => {
  await killRunning()
  await removeTempDirs()
})

// The test's own environment sets no GOTOOLCHAIN, so a trusted workspace's go sees none.
const realGo = execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim()

async function goWorkspace(goRow: string) {
  const scratch = await tempDir()
  const [bin, home, repo] = [join(scratch, 'bin'), join(scratch, 'home'), join(scratch, 'repo')]
  await Promise.all([mkdir(bin), mkdir(home), mkdir(repo)])
  const marker = join(scratch, 'gotoolchain')
  await writeFile(join(bin, 'go'), `#!/bin/sh\necho "\${GOTOOLCHAIN-unset}" >> '${marker}'\nexec '${realGo}' "$@"\n`)
  await chmod(join(bin, 'go'), 0o755)
  await writeFile(join(repo, 'go.mod'), 'module example.com/x\n\ngo 1.19\n')
  await writeFile(join(repo, 'main.go'), 'package main\n\nfunc Answer() int { return 42 }\n\nfunc main() { _ = Answer() }\n')
  const overlay = join(scratch, 'overlay.yml')
  await writeFile(overlay, `- id: lsp-stdio\n  config:\n    catalog: [go]\n${goRow}`)
  const env = { DSH_HOME: home, PATH: `${bin}:${process.env.PATH}` }
  const symbols = async () => {
    const result = await dshIn(['call', 'lsp_symbols', JSON.stringify({ filePath: 'main.go' }), '--config', overlay, '--cwd', repo], { env })
    expect(result.stdout + result.stderr).toContain('Answer')
  }
  const seen = async () => [...new Set((await readFile(marker, 'utf8').catch(() => '')).split('\n').filter(Boolean))]
  return { home, repo, marker, symbols, seen }
}

describe("the catalog's go row and a repository's Go toolchain", () => {
  it('untrusted, every go gopls runs has GOTOOLCHAIN=local; trusted, the environment is left as it was', async () => {
    const ws = await goWorkspace('')
    await ws.symbols()
    expect(await ws.seen(), 'GOTOOLCHAIN of the go commands gopls ran, untrusted').toEqual(['local'])

    await writeFile(ws.marker, '')
    await trustIn(ws.home, ws.repo)
    await ws.symbols()
    expect(await ws.seen(), 'GOTOOLCHAIN of the go commands gopls ran, trusted').toEqual(['unset'])
  })

  it("a GOTOOLCHAIN the user's row sets is kept, trusted or not", async () => {
    const ws = await goWorkspace('    servers:\n      go:\n        env: { GOTOOLCHAIN: go1.19.8 }\n')
    await ws.symbols()
    expect(await ws.seen()).toEqual(['go1.19.8'])
  })
})

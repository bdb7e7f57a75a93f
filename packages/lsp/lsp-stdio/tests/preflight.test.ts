// A row's `preflight`: a cheap command run before a server first starts, so an executable that is
// present but cannot work (a rustup shim whose component is not installed) is an `unavailable` row
// with its install command instead of a server that dies at every start. The shims here are small
// shell scripts on the row's PATH that log each run.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bootPreset, type Host } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { SERVER_CATALOG } from '../src/catalog.ts'
import { TRUST_EVERYTHING } from '../../../../test-support/trust.ts'
import { fakeEnv, fakeServerPath } from './fixtures/fake-config.ts'
import { cleanupRigs, FAST, isAlive, makeWorkspace, rejection, tempDir, writePreset } from './fixtures/rig.ts'

const RUSTUP_ERROR = "error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'."

/** `rust-analyzer` in a fresh directory: logs its arguments (`-` for none) to `runs`, then runs `body`. */
function shim(body: string): { bin: string; runs(): string[] } {
  const bin = tempDir('lsp-stdio-shim-')
  const log = join(bin, 'runs.log')
  const script = join(bin, 'rust-analyzer')
  writeFileSync(script, `#!/bin/sh\necho "\${*:--}" >> '${log}'\n${body}\n`)
  chmodSync(script, 0o755)
  return { bin, runs: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) }
}

const hosts: Host[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop()
  await cleanupRigs()
})

async function boot(server: Record<string, unknown>): Promise<Host> {
  // The catalog's rust row starts only in a trusted workspace (trust-gated.test.ts): these are.
  const host = await bootPreset({ preset: writePreset({ servers: { rust: server } }, { withTrust: true }), askTrust: TRUST_EVERYTHING })
  hosts.push(host)
  return host
}

describe('preflight', () => {
  it('a rustup shim without its component: the catalog row is unavailable with the install command, its queries too, and the check ran once', async () => {
    const rustup = shim(`echo "${RUSTUP_ERROR}" >&2\nexit 1`)
    const host = await boot({ ...SERVER_CATALOG.rust!.server, env: { PATH: `${rustup.bin}:/usr/bin:/bin` }, ...FAST })
    const ws = makeWorkspace({ 'src/main.rs': 'fn main() {}\n' })

    const [row] = await host.app.readiness.report({ probe: true, cwd: ws })
    expect(row).toMatchObject({ id: 'rust', state: 'unavailable' })
    expect(row!.detail).toContain(RUSTUP_ERROR)
    expect(row!.detail).toContain('install: rustup component add rust-analyzer')

    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(host.app.lsp.query({ operation: 'hover', filePath: 'src/main.rs', position: { line: 0, character: 3 }, workspaceRoot: ws }))
      expect(error).toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('install: rustup component add rust-analyzer') })
    }
    // Without probing, the row still says why.
    const [quiet] = await host.app.readiness.report()
    expect(quiet).toMatchObject({ state: 'unavailable', detail: expect.stringContaining(RUSTUP_ERROR) })
    // Checked once, never started as a server.
    expect(rustup.runs()).toEqual(['--version'])
  })

  it('a check that passes is run once, and the server then starts and answers', async () => {
    const working = shim(`[ "$1" = --version ] && { echo 'rust-analyzer 1.0.0'; exit 0; }\nexec '${process.execPath}' '${fakeServerPath}'`)
    const host = await boot({ ...SERVER_CATALOG.rust!.server, env: { PATH: `${working.bin}:/usr/bin:/bin`, ...fakeEnv({}, join(working.bin, 'fake.jsonl')) }, ...FAST })
    const ws = makeWorkspace({ 'src/main.rs': 'fn main() {}\n' })
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await host.app.lsp.query({ operation: 'hover', filePath: 'src/main.rs', position: { line: 0, character: 3 }, workspaceRoot: ws })
      expect(result.kind).toBe('hover')
    }
    expect(working.runs()).toEqual(['--version', '-'])
  })

  it('a check that never ends is stopped after timeoutMs and the row is unavailable, naming the budget', async () => {
    const pidFile = join(tempDir(), 'pid')
    const hanging = shim(`echo $$ > '${pidFile}'\nexec sleep 600`)
    const host = await boot({ command: 'rust-analyzer', extensionToLanguage: { '.rs': 'rust' }, install: 'get it', preflight: { args: ['--version'], timeoutMs: 200 }, env: { PATH: `${hanging.bin}:/usr/bin:/bin` }, ...FAST })
    const ws = makeWorkspace({ 'main.rs': 'fn main() {}\n' })
    const error = await rejection(host.app.lsp.query({ operation: 'hover', filePath: 'main.rs', position: { line: 0, character: 0 }, workspaceRoot: ws }))
    expect(error).toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringMatching(/rust-analyzer --version` did not finish within 200 ms \(preflight\.timeoutMs\).*install: get it/) })
    expect(isAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false)
  })
})

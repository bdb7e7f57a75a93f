import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, type Host, type ToolResult } from 'dsh-core'
// The workspaces here bring their own TypeScript: trusted, as their user would (test-support/trust.ts).
import { TRUST_EVERYTHING } from '../../../../../test-support/trust.ts'
import { processesLeftIn } from '../../../../../test-support/processes.ts'
import { afterAll, beforeAll, expect } from 'vitest'

const REPO = fileURLToPath(new URL('../../../../../', import.meta.url))
const WORKSPACES = fileURLToPath(new URL('./workspaces/', import.meta.url))

export type Fixture = 'ts-symbols' | 'py-symbols' | 'ts-capabilities' | 'py-capabilities' | 'ts-rename' | 'py-rename' | 'go-rename' | 'c-rename' | 'ts-stale'

export interface RealSuite {
  /** The private copy of the fixture: the session workspace. */
  readonly dir: string
  /** One `lsp` call as the model makes it, in a session on `dir`. */
  call(args: Record<string, unknown>): Promise<ToolResult>
  /** The booted host (after beforeAll). */
  readonly host: Host
}

export interface RealSuiteOptions {
  /** An overlay (YAML) applied on top of the coding preset. */
  readonly overlay?: string
  /** Runs on the private copy before the preset boots. */
  readonly prepare?: (dir: string) => void
}

/**
 * For one describe block: a private copy of a fixture workspace and the real coding preset
 * (typescript-language-server, pyright). Afterwards no process may be left running in that copy.
 */
export function realSuite(fixture: Fixture, options: RealSuiteOptions = {}): RealSuite {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `dsh-tool-lsp-${fixture}-`)))
  const dir = join(root, fixture)
  cpSync(join(WORKSPACES, fixture), dir, { recursive: true })
  options.prepare?.(dir)
  const overlays = options.overlay === undefined ? [] : [join(root, 'overlay.yml')]
  if (options.overlay !== undefined) writeFileSync(overlays[0]!, options.overlay)
  let host: Host | undefined
  beforeAll(async () => {
    host = await bootPreset({ preset: join(REPO, 'presets', 'coding.yml'), overlays, askTrust: TRUST_EVERYTHING })
  })
  afterAll(async () => {
    await host?.stop()
    expect(await processesLeftIn(dir)).toEqual([])
    rmSync(root, { recursive: true, force: true })
  })
  return {
    dir,
    get host() {
      if (!host) throw new Error('the coding preset has not booted')
      return host
    },
    call(args) {
      if (!host) throw new Error('the coding preset has not booted')
      const session = host.app.sessions.create({ cwd: dir })
      return host.app.tools.execute({ name: 'lsp', arguments: args, session })
    },
  }
}

/** The value of a successful call; a failed call fails the test with its code and message. */
export function valueOf(result: ToolResult): any {
  if (result.isError) throw new Error(`lsp call failed: ${result.error.code}: ${result.error.message}`)
  return result.value
}

/** `path:line:column` (one-based) of each location, for comparing answers. */
export function placesOf(result: ToolResult): string[] {
  return valueOf(result).locations.map((l: any) => `${l.path}:${l.range.start.line + 1}:${l.range.start.character + 1}`)
}

/** TypeScript 7, installed as the workspace's own `typescript` (the devDependency `typescript-7` of dsh-lsp-stdio). */
export function installTypescript7(dir: string): void {
  const lspStdio = fileURLToPath(new URL('../../../lsp-stdio/package.json', import.meta.url))
  const typescript7 = dirname(createRequire(lspStdio).resolve('typescript-7/package.json'))
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(realpathSync(typescript7), join(dir, 'node_modules', 'typescript'))
}

/** An overlay of failure guards for a busy machine, never pass conditions: the first TypeScript query waits for the project to load. */
export const PATIENT_TYPESCRIPT = `
- id: lsp-stdio
  config:
    servers:
      typescript: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

/** gopls and clangd only, with failure guards for a busy machine (their first index can take minutes under load). */
export const PATIENT_GO_AND_C = `
- id: lsp-stdio
  config:
    catalog: [go, c]
    servers:
      go: { indexingTimeoutMs: 240000 }
      c: { indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

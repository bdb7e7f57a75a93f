import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, type Host, type Session, type ToolResult } from 'dsh-core'
// The workspaces here bring their own TypeScript: trusted, as their user would (test-support/trust.ts).
import { TRUST_EVERYTHING } from '../../../../../test-support/trust.ts'
import { afterAll, beforeAll, expect } from 'vitest'
import { PATIENT_LSP_OVERLAY } from '../../../../../test-support/patient-lsp.ts'

const REPO = fileURLToPath(new URL('../../../../../', import.meta.url))
export const CODING_PRESET = join(REPO, 'presets', 'coding.yml')
const WORKSPACES = fileURLToPath(new URL('./workspaces/', import.meta.url))

/** A private copy of a fixture workspace (tests may add files, symlinks, or edit sources). */
export function copyWorkspace(name: string): { dir: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `dsh-real-${name}-`)))
  const dir = join(root, name)
  cpSync(join(WORKSPACES, name), dir, { recursive: true })
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/**
 * Boots the real coding preset with the patient language-server budgets (a cold start on a loaded
 * machine is not under test), then an overlay written from `overlayYaml` when given.
 */
export async function bootCoding(overlayYaml?: string): Promise<Host> {
  if (!overlayYaml) return bootPreset({ preset: CODING_PRESET, overlays: [PATIENT_LSP_OVERLAY], askTrust: TRUST_EVERYTHING })
  const dir = mkdtempSync(join(tmpdir(), 'dsh-overlay-'))
  const overlay = join(dir, 'overlay.yml')
  writeFileSync(overlay, overlayYaml)
  try {
    return await bootPreset({ preset: CODING_PRESET, overlays: [PATIENT_LSP_OVERLAY, overlay], askTrust: TRUST_EVERYTHING })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface LspArgs {
  readonly operation: 'goToDefinition' | 'findReferences' | 'goToImplementation' | 'hover'
  readonly filePath: string
  readonly line: number
  readonly character: number
}

export function callLsp(host: Host, session: Session, args: LspArgs, signal?: AbortSignal): Promise<ToolResult> {
  return host.app.tools.execute({ name: 'lsp', arguments: args, session, ...(signal ? { signal } : {}) })
}

/** The value of a successful call, failing the test with the error text otherwise. */
export function valueOf(result: ToolResult): any {
  if (result.isError) throw new Error(`lsp call failed: ${result.error.code}: ${result.error.message}`)
  return result.value
}

/** Pids of live (non-zombie) processes whose command line matches. */
export async function livePids(pattern: RegExp): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs')
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ')
      if (pattern.test(cmdline)) pids.push(Number(entry))
    } catch {
      // the process went away while we looked
    }
  }
  return pids
}

/** Command lines of every language server the tests start (the catalog's included). */
const LANGUAGE_SERVER = /typescript-language-server|tsserver|tsc --lsp|pyright-langserver|langserver\.index|gopls|clangd|bash-language-server|yaml-language-server|vscode-\w+-language-server|docker-langserver/

/** Servers started by this test process (their parent chain leads here): matched by our pid in the server's processId argument is not available, so by workspace dir. */
export async function serversFor(workspaceDir: string): Promise<number[]> {
  const { readFileSync } = await import('node:fs')
  const pids = await livePids(LANGUAGE_SERVER)
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`PWD=${workspaceDir}`) || realpathSync(`/proc/${pid}/cwd`) === workspaceDir
    } catch {
      return false
    }
  })
}

export interface CodingSuite {
  readonly workspace: { readonly dir: string }
  readonly host: Host
  /** A new session whose workspace is the fixture copy (or `cwd`). */
  session(cwd?: string): Session
}

/**
 * For one describe block: a private copy of a fixture workspace and the coding preset booted
 * (with `overlayYaml` on top). Afterwards no language server of that workspace may be left.
 */
export function codingSuite(name: string, overlayYaml?: string, prepare?: (dir: string) => void): CodingSuite {
  const workspace = copyWorkspace(name)
  prepare?.(workspace.dir)
  let booted: Host | undefined
  beforeAll(async () => {
    booted = await bootCoding(overlayYaml)
  })
  afterAll(async () => {
    await booted?.stop()
    expect(await serversFor(workspace.dir)).toEqual([])
    workspace.remove()
  })
  const suite: CodingSuite = {
    workspace,
    get host() {
      if (!booted) throw new Error('the coding preset has not booted')
      return booted
    },
    session: (cwd = workspace.dir) => suite.host.app.sessions.create({ cwd }),
  }
  return suite
}

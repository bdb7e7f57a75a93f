import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { bootPreset, type Host } from 'dsh-core'
import { SETTLE_MS } from 'dsh-lsp'
import { descendants } from '../test-support/processes.ts'
import { TYPESCRIPT_7, TYPESCRIPT_7_COMPILER, TYPESCRIPT_7_VERSION } from './typescript-7.ts'

/** The repository, for fixtures and the installed servers. */
export const REPO = fileURLToPath(new URL('../', import.meta.url))

/** A language server as the lsp benches run it: what the bare client spawns, and how a fixture copy becomes a project of its kind. */
export interface BenchServer {
  readonly name: string
  /** The same server the coding preset chooses for the project the copy becomes. */
  readonly executable: string
  readonly args: readonly string[]
  readonly prepare: (dir: string) => void
  /**
   * dsh-lsp-stdio keeps the documents it is asked about open on this server (it answers pulled
   * diagnostics, docs/lsp.md "Open documents"), where the bare client opens and closes one per query.
   */
  readonly dshKeepsDocuments?: boolean
  /**
   * The `initializationOptions` dsh's row sends this server, which the bare client sends too: the
   * ratio measures our overhead, not a configuration difference.
   */
  readonly initializationOptions?: unknown
}

/** typescript-language-server over the TypeScript 5.9 beside dsh (the copy has no TypeScript of its own). */
export const TSSERVER: BenchServer = {
  name: 'tsserver 5.9.3 (typescript-language-server)',
  executable: join(REPO, 'node_modules/.bin/typescript-language-server'),
  args: ['--stdio'],
  // dsh-lsp-stdio's launch turns typescript-language-server's partial-semantic syntax server off
  // (src/typescript.ts); the bare client's server runs as ours does, one tsserver, not two.
  initializationOptions: { tsserver: { useSyntaxServer: 'never' } },
  prepare: () => {},
}

/** TypeScript 7's own server (the copy gets TypeScript 7 in its node_modules). */
export const NATIVE: BenchServer = {
  name: `native ${TYPESCRIPT_7_VERSION} (tsc --lsp)`,
  executable: TYPESCRIPT_7_COMPILER,
  args: ['--lsp', '--stdio'],
  dshKeepsDocuments: true,
  // dsh-lsp-stdio's native launch asks for warnings and errors only in its log (src/typescript.ts).
  initializationOptions: { logVerbosity: 4 },
  prepare: (dir) => {
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(TYPESCRIPT_7, join(dir, 'node_modules', 'typescript'))
  },
}

/** A private copy of `fixture` (a directory of the repository), made a project for `server`; `remove()` deletes it. */
export function fixtureCopy(fixture: string, server: Pick<BenchServer, 'prepare'>, prefix: string): { dir: string; madeAt: number; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  const dir = join(root, basename(fixture))
  const madeAt = Date.now()
  cpSync(fixture, dir, { recursive: true })
  server.prepare(dir)
  return { dir, madeAt, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/**
 * Waits until a copy's files are older than dsh-lsp's settle time, as a repository's files are: a
 * file changed less than SETTLE_MS before it was read is read again on every query (docs/lsp.md,
 * "Reused reads"). Measured before that, the first operations paid for the copy having just been
 * made: four more file reads per query (TypeScript 7 definitions 1.43x in one quiet run, 1.15x in
 * the next once settled). Edits are the diagnostics part's.
 */
export async function untilSettled(copy: { readonly madeAt: number }): Promise<void> {
  await sleep(Math.max(0, copy.madeAt + SETTLE_MS + 100 - Date.now()))
}

/**
 * The coding preset, patched by the overlay `BENCH_LSP_OVERLAY` names (to compare a setting, e.g.
 * the fs row's io). The projects the benches make bring their own TypeScript (7): trusted, as their
 * user would, so the server the preset chooses is the one the bare client runs.
 */
export function bootCoding(): Promise<Host> {
  const overlay = process.env.BENCH_LSP_OVERLAY
  return bootPreset({ preset: join(REPO, 'presets/coding.yml'), ...(overlay ? { overlays: [overlay] } : {}), askTrust: () => true })
}

/** Live processes whose working directory is `dir`, with their descendants. */
export function serverPids(dir: string): number[] {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number)
  const roots = pids.filter((pid) => {
    try {
      return realpathSync(`/proc/${pid}/cwd`) === dir && pid !== process.pid
    } catch {
      return false
    }
  })
  return [...new Set(roots.flatMap((pid) => [pid, ...descendants(pid)]))]
}

/**
 * CPU time the processes and their descendants have used so far, in milliseconds: every thread's
 * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds, unlike the clock ticks of `stat`). A thread that
 * ended took its time with it; the servers measured here keep theirs.
 */
export function treeCpuMs(pids: readonly number[]): number {
  let ns = 0
  for (const pid of new Set(pids.flatMap((pid) => [pid, ...descendants(pid)]))) {
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tasks) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
      } catch {
        // gone
      }
    }
  }
  return ns / 1e6
}


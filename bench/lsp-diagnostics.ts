import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, type Host } from 'dsh-core'
import { BareLspClient } from './bare-lsp-client.ts'
import { ms, percentile, ratio, timed } from './stats.ts'
import { TYPESCRIPT_7, TYPESCRIPT_7_COMPILER, TYPESCRIPT_7_VERSION } from './typescript-7.ts'

// Diagnostics after a change (issue 22). Ours: what a harness does after an edit — write the file,
// `ctx.lsp.fileChanged(path)`, then the `lsp_diagnostics` tool (transient open, the server's answer
// for that text, the bounded value with line text, the rendering). Baseline: a bare vscode-jsonrpc
// client with the document kept open doing `didChange` and waiting for the `publishDiagnostics`
// that answers it (for a server that sends versions, the one with the new version; otherwise the
// first one with the expected errors: it knows the answer, we do not), or `didChange` plus
// `textDocument/diagnostic` for TypeScript 7's own server, which publishes nothing for .ts files.
// Each side has its own server on its own copy of the project; the text alternates between a
// version of main with one type error and the clean one, so every change has a new answer.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const WORKSPACES = join(REPO, 'packages/lsp/tool-lsp/tests/real/workspaces')
const ROUNDS = Number(process.env.BENCH_LSP_DIAGNOSTICS_ROUNDS ?? 40)

interface Server {
  readonly name: string
  readonly fixture: string
  readonly executable: string
  readonly args: readonly string[]
  readonly prepare: (dir: string) => void
  readonly file: string
  readonly languageId: string
  readonly breakText: (text: string) => string
  /** How the baseline learns the answer. */
  readonly baseline: 'versioned' | 'unversioned' | 'pull'
}

const typescript = { fixture: 'ts-capabilities', file: 'src/main.ts', languageId: 'typescript', breakText: (text: string) => text.replace('text: string', 'text: number') }

const SERVERS: readonly Server[] = [
  { name: 'pyright 1.1.414 (publishes, with versions)', fixture: 'py-capabilities', executable: join(REPO, 'node_modules/.bin/pyright-langserver'), args: ['--stdio'], prepare: () => {}, file: 'geo/main.py', languageId: 'python', breakText: (text) => text.replace('text: str', 'text: int'), baseline: 'versioned' },
  {
    name: `native ${TYPESCRIPT_7_VERSION} (tsc --lsp; pull)`,
    ...typescript,
    executable: TYPESCRIPT_7_COMPILER,
    args: ['--lsp', '--stdio'],
    prepare: (dir) => {
      mkdirSync(join(dir, 'node_modules'))
      symlinkSync(TYPESCRIPT_7, join(dir, 'node_modules', 'typescript'))
    },
    baseline: 'pull',
  },
  { name: 'tsserver 5.9.3 (typescript-language-server; publishes, no versions)', ...typescript, executable: join(REPO, 'node_modules/.bin/typescript-language-server'), args: ['--stdio'], prepare: () => {}, baseline: 'unversioned' },
]

function workspaceCopy(server: Server): { dir: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-diagnostics-')))
  const dir = join(root, server.fixture)
  cpSync(join(WORKSPACES, server.fixture), dir, { recursive: true })
  server.prepare(dir)
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

const errorsIn = (diagnostics: readonly { readonly severity?: number }[]) => diagnostics.filter((item) => (item.severity ?? 1) === 1).length

/** The writer's path: write, tell the seam, ask the tool. Checks the answer. */
async function ours(host: Host, session: ReturnType<Host['app']['sessions']['create']>, dir: string, server: Server, text: string, errors: number): Promise<void> {
  writeFileSync(join(dir, server.file), text)
  host.app.lsp.fileChanged(server.file, { session })
  const result = await host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: server.file, severity: 'error' }, session })
  if (result.isError) throw new Error(`lsp_diagnostics: ${result.error.code} ${result.error.message}`)
  const value = result.value as { total: number; complete: boolean }
  if (value.total !== errors || !value.complete) throw new Error(`lsp_diagnostics answered ${value.total} errors (complete ${value.complete}), expected ${errors}`)
}

async function complete(host: Host, session: ReturnType<Host['app']['sessions']['create']>, file: string): Promise<boolean> {
  const result = await host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: file }, session })
  return !result.isError && (result.value as { complete: boolean }).complete
}

/** didChange, then the answer the server gives for it. */
async function bare(client: BareLspClient, server: Server, text: string, errors: number): Promise<void> {
  if (server.baseline === 'pull') {
    await client.change(server.file, text)
    const report = await client.pull(server.file)
    if (errorsIn(report.items) !== errors) throw new Error(`pulled ${errorsIn(report.items)} errors, expected ${errors}`)
    return
  }
  let version = Number.NaN
  const answer = client.publication(server.file, (publication) => (server.baseline === 'versioned' ? publication.version === version : errorsIn(publication.diagnostics) === errors))
  version = await client.change(server.file, text)
  const publication = await answer
  if (errorsIn(publication.diagnostics) !== errors) throw new Error(`published ${errorsIn(publication.diagnostics)} errors, expected ${errors}`)
}

async function measure(server: Server): Promise<string[]> {
  const mine = workspaceCopy(server)
  const theirs = workspaceCopy(server)
  const clean = readFileSync(join(mine.dir, server.file), 'utf8')
  const broken = server.breakText(clean)
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  const client = new BareLspClient(server.executable, server.args, theirs.dir, { diagnostics: true })
  try {
    const session = host.app.sessions.create({ cwd: mine.dir })
    await client.initialize()
    await client.open(server.file, server.languageId)
    await client.waitQuiet(120_000)
    // Warm both: the project loaded (a cold server's first answer may come after diagnosticsWaitMs:
    // ask until one is complete), then a few changes answered.
    for (let attempt = 1; !(await complete(host, session, server.file)); attempt++) {
      if (attempt === 10) throw new Error(`${server.name}: no complete diagnostics after ${attempt} calls`)
    }
    for (let i = 0; i < 20; i++) {
      const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
      await ours(host, session, mine.dir, server, text, errors)
      await bare(client, server, text, errors)
    }
    const oursMs: number[] = []
    const bareMs: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
      // Alternate who goes first so neither side always gets the quieter machine.
      const sides = [async () => oursMs.push((await timed(() => ours(host, session, mine.dir, server, text, errors)))[0]), async () => bareMs.push((await timed(() => bare(client, server, text, errors)))[0])]
      for (const side of i % 4 < 2 ? sides : sides.reverse()) await side()
    }
    const [o50, b50, o95, b95] = [percentile(oursMs, 50), percentile(bareMs, 50), percentile(oursMs, 95), percentile(bareMs, 95)]
    return [`${server.name.padEnd(66)} ${ms(o50).padStart(10)}  ${ms(b50).padStart(10)}  ${ratio(o50, b50).padStart(6)}  ${ms(o95).padStart(10)}  ${ms(b95).padStart(10)}  ${ratio(o95, b95).padStart(6)}`]
  } finally {
    await client.close()
    await host.stop()
    mine.remove()
    theirs.remove()
  }
}

export async function benchLspDiagnostics(): Promise<string[]> {
  const lines = [
    `diagnostics after a change, ${ROUNDS} changes per side (one error in, one error out, alternating); ours: write + fileChanged + lsp_diagnostics; bare: didChange + the answer`,
    `${'server'.padEnd(66)} ${'ours p50'.padStart(10)}  ${'bare p50'.padStart(10)}  ${'ratio'.padStart(6)}  ${'ours p95'.padStart(10)}  ${'bare p95'.padStart(10)}  ${'ratio'.padStart(6)}`,
  ]
  for (const server of SERVERS) lines.push(...(await measure(server)))
  return lines
}

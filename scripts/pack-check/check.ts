/**
 * `pnpm check:pack`: proves that every package of this workspace installs from npm into someone
 * else's project and works there without this repository, TypeScript at run time, or tsx.
 *
 * 1. Checks each workspace package is publishable and part of the build, then builds every one from
 *    empty dist/ directories (`tsc -b`).
 * 2. Packs each with pnpm (publishConfig applies; `workspace:^` becomes a real range) and lints every
 *    tarball with publint: any message, down to a suggestion, fails.
 * 3. Installs the tarballs with npm into a fresh directory outside the repository, with the language
 *    servers docs/embedding.md names (unpinned, as there), and this repository's TypeScript compiler,
 *    @types/node and zod for the consumer check.
 * 4. There: imports every public entry with plain node (and resolves it as `require` would, like the
 *    preset runner); compiles the type-level consumer, an import of every entry and the reference
 *    harness (examples/harness) against the published declarations under nodenext, and runs the
 *    harness; runs app.mjs (its own cordis app with the host, LSP, Web and Skill plugins, an `lsp`
 *    hover through each installed server, a `skill` call, nothing left running); runs `npx dsh status --preset preset.yml` (which
 *    also mounts the installed `dsh serve` through dsh-mcp) and `npx dsh status` on the coding preset
 *    that dsh-cli carries; checks `npx dsh tools --json --preset base` loads the dsh packages from
 *    their bundles (scripts/bundle.mjs) and few modules in all (startup.ts).
 *
 * The packages come from `pnpm ls -r`, so one added later is covered without touching this file
 * (private ones outside packages/, the examples, are not published and are skipped).
 * Only the npm registry is reached. `--keep` leaves the install directory behind (it is always kept
 * when a step fails) and prints its path.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { CheckFailure, run } from './commands.ts'
import { embeddingPresets, embeddingSnippets, FRAGMENT_PRELUDE, readmeClientEntries, type EmbeddingSnippet } from './snippets.ts'
import { checkPresetTwins, checkStartupModules } from './startup.ts'
import { publishedPackages, workspacePackages, type Manifest, type WorkspacePackage } from './workspace.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const HERE = fileURLToPath(new URL('.', import.meta.url))
const HARNESS = join(ROOT, 'examples', 'harness')
const KEEP = process.argv.includes('--keep')

interface Packed {
  readonly name: string
  readonly tarball: string
  /** Public entries as import specifiers: `dsh-core`, `dsh-core/tools`, … */
  readonly entries: readonly string[]
}

const started = performance.now()
const step = (title: string) => console.log(`\n== ${title} (${((performance.now() - started) / 1000).toFixed(0)} s)`)

async function main(): Promise<void> {
  const workspace = await workspacePackages(ROOT)
  const packages = publishedPackages(ROOT, workspace)
  console.log(`${packages.length} packages: ${packages.map((pkg) => pkg.name).join(', ')}`)
  const unpublished = workspace.filter((pkg) => !packages.includes(pkg))
  if (unpublished.length) console.log(`not published (private): ${unpublished.map((pkg) => pkg.name).join(', ')}`)

  step('build')
  for (const pkg of packages) rmSync(join(pkg.path, 'dist'), { recursive: true, force: true })
  await run('pnpm', ['run', '--silent', 'build'], { cwd: ROOT })

  const scratch = mkdtempSync(join(tmpdir(), 'dsh-pack-check-'))
  if (!relative(ROOT, scratch).startsWith('..')) throw new CheckFailure(`the install directory ${scratch} is inside the repository`)
  let passed = false
  try {
    step('pack and publint')
    const tarballs = join(scratch, 'tarballs')
    const packed = await Promise.all(packages.map((pkg) => pack(pkg, tarballs)))

    step('npm install')
    const app = join(scratch, 'app')
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-check-app', private: true, type: 'module' }, null, 2)}\n`)
    const snippets = embeddingSnippets(ROOT)
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packed.map((p) => p.tarball), ...toolVersions(), ...documentedInstalls(snippets, packed), TYPESCRIPT_5], { cwd: app})

    step('import every entry with plain node')
    const entries = packed.flatMap((p) => p.entries)
    writeFileSync(join(app, 'entries.mjs'), entriesScript(entries))
    console.log((await run('node', ['entries.mjs'], { cwd: app })).stdout.trim())

    step('compile against the published declarations (nodenext) and run the reference harness')
    mkdirSync(join(app, 'harness'))
    for (const file of ['harness.ts', 'scripted-model.ts', 'run.ts']) copyFileSync(join(HARNESS, file), join(app, 'harness', file))
    copyFileSync(join(HERE, 'consumer.ts'), join(app, 'consumer.ts'))
    writeFileSync(join(app, 'entries.ts'), entries.map((entry, index) => `export * as entry${index} from '${entry}'\n`).join(''))
    writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(CONSUMER_TSCONFIG, null, 2)}\n`)
    await compileConsumer(app)
    console.log((await run('node', ['build/harness/run.js'], { cwd: app })).stdout.trim().split('\n').slice(0, 5).join('\n'))

    step('node app.mjs')
    copyFileSync(join(HERE, 'app.mjs'), join(app, 'app.mjs'))
    console.log((await run('node', ['app.mjs'], { cwd: app})).stdout.trim())

    step('every code block of docs/embedding.md, in a CommonJS project (npm init -y)')
    await runEmbeddingSnippets(app, snippets)

    step("the README's MCP client entries, started as a client starts them")
    const project = join(app, 'snippets')
    const clientEntries = readmeClientEntries(ROOT).map((entry) => {
      const place = (text: string) => text.replaceAll('/opt/dsh-extensions/', ROOT).replaceAll('/home/me/harness', app).replaceAll('/home/me/project', project)
      return { ...entry, command: place(entry.command), args: entry.args.map(place) }
    })
    copyFileSync(join(HERE, 'clients.mjs'), join(app, 'clients.mjs'))
    console.log((await run('node', ['clients.mjs', JSON.stringify(clientEntries)], { cwd: app})).stdout.trim())

    step('npx dsh status --preset preset.yml')
    for (const file of ['preset.yml', 'serve.yml']) copyFileSync(join(HERE, file), join(app, file))
    const status = await run('npx', ['--no', 'dsh', 'status', '--preset', 'preset.yml', '--json'], { cwd: app})
    checkStatus(status.stdout)

    step('npx dsh tools --json --preset base: what it loads')
    console.log(checkPresetTwins(app))
    console.log(await checkStartupModules(app))

    step('npx dsh status (the packaged coding preset)')
    const coding = await run('npx', ['--no', 'dsh', 'status', '--json'], { cwd: app})
    checkPackagedPreset(coding.stdout)

    passed = true
    step(`all ${packages.length} packages install from their tarballs and work`)
  } finally {
    if (passed && !KEEP) rmSync(scratch, { recursive: true, force: true })
    else console.log(`install directory kept: ${join(scratch, 'app')}`)
  }
}

async function pack(pkg: WorkspacePackage, destination: string): Promise<Packed> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination, '--json'], { cwd: pkg.path, quiet: true })
  const tarball = (JSON.parse(stdout) as { filename: string }).filename
  const { messages, pkg: manifest } = await publint({ pack: { tarball: toArrayBuffer(readFileSync(tarball)) }, level: 'suggestion' })
  const published = manifest as Manifest
  const problems = messages.map((message) => `publint ${message.type}: ${formatMessage(message, manifest, { color: false }) ?? message.code}`)
  if (JSON.stringify(manifest).includes('workspace:')) problems.push('the packed package.json still says workspace:')
  for (const [entry, target] of Object.entries(published.exports ?? {})) {
    if (entry !== './package.json' && JSON.stringify(target).includes('./src/')) problems.push(`the published export "${entry}" points into src/`)
  }
  if (problems.length) throw new CheckFailure(`${pkg.name}:\n  ${problems.join('\n  ')}`)
  const entries = Object.keys(published.exports ?? {})
    .filter((entry) => entry !== './package.json')
    .map((entry) => (entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`))
  console.log(`${pkg.name}: ${tarball.split(sep).pop()}, publint clean, entries ${entries.join(', ')}`)
  return { name: pkg.name, tarball, entries }
}

/**
 * The packages docs/embedding.md's install lines name, as written there (the language servers
 * unpinned: `typescript` 7 and later answer through their own server; `typescript-language-server`
 * for projects on TypeScript 5; `pyright`), the dsh ones coming from their tarballs instead.
 */
function documentedInstalls(snippets: readonly EmbeddingSnippet[], packed: readonly Packed[]): string[] {
  const named = snippets.flatMap((snippet) => (snippet.kind === 'install' ? snippet.packages : []))
  const unknown = named.filter((name) => name.startsWith('dsh-') && !packed.some((pkg) => pkg.name === name))
  if (unknown.length) throw new CheckFailure(`docs/embedding.md installs ${unknown.join(', ')}, which this workspace does not publish`)
  return [...new Set(named.filter((name) => !packed.some((pkg) => pkg.name === name)))]
}

/** A TypeScript 5 (`npm:typescript@5`) that app.mjs gives one project as its own, as such a project has. */
const TYPESCRIPT_5 = 'typescript-5@npm:typescript@5'

/**
 * Runs docs/embedding.md as a reader would: the yaml files and programs saved under the names they
 * give, in a project made as `npm init -y` makes one (CommonJS) with a `src/main.ts` to hover,
 * each program run with node (exit 0, no output on stderr); the fragments compiled against the
 * published declarations.
 */
async function runEmbeddingSnippets(app: string, snippets: readonly EmbeddingSnippet[]): Promise<void> {
  const project = join(app, 'snippets')
  mkdirSync(join(project, 'src'), { recursive: true })
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'snippets', version: '1.0.0', main: 'index.js', license: 'ISC' }, null, 2)}\n`)
  writeFileSync(join(project, 'src', 'main.ts'), 'export const greeting: string = "hello"\n')
  const fragments = join(app, 'fragments')
  mkdirSync(fragments)
  for (const snippet of snippets) {
    if (snippet.kind === 'file') writeFileSync(join(project, snippet.name), snippet.block.text)
  }
  for (const snippet of snippets) {
    switch (snippet.kind) {
      case 'install':
      case 'file':
        break
      case 'program': {
        writeFileSync(join(project, snippet.name), snippet.block.text)
        const { stdout, stderr } = await run('node', [snippet.name], { cwd: project, quiet: true })
        if (stderr.trim()) throw new CheckFailure(`${snippet.block.where} (${snippet.name}) wrote to stderr:\n${stderr}`)
        console.log(`${snippet.block.where} ${snippet.name}: ${stdout.trim().split('\n').join(' | ').slice(0, 300)}`)
        break
      }
      case 'fragment':
        writeFileSync(join(fragments, `line-${snippet.block.line}.ts`), `${FRAGMENT_PRELUDE}// ${snippet.block.where}\n${snippet.block.text}`)
        break
      default:
        throw new CheckFailure(`unhandled snippet ${JSON.stringify(snippet satisfies never)}`)
    }
  }
  // The page's own presets, as a reader runs them once the install lines are done (issue 33 item 11).
  for (const preset of embeddingPresets(snippets)) {
    const status = await run('npx', ['--no', 'dsh', 'status', '--preset', preset.name, '--json'], { cwd: project, quiet: true })
    const rows = (JSON.parse(status.stdout) as { capabilities: { surface: string; id: string; state: string }[] }).capabilities
    console.log(`${preset.block.where} npx dsh status --preset ${preset.name}: ${rows.map((row) => `${row.surface}/${row.id} ${row.state}`).join(', ')}`)
  }
  writeFileSync(join(app, 'tsconfig.fragments.json'), `${JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, include: ['fragments/*.ts'] }, null, 2)}\n`)
  await compileConsumer(app, 'tsconfig.fragments.json')
}

/** The compiler of the consumer check (this repository's TypeScript, as `dsh-check-tsc`), Node's types and zod, at this repository's versions. */
function toolVersions(): string[] {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest
  const versions = { ...root.dependencies, ...root.devDependencies }
  const pinned = (name: string) => {
    const version = versions[name]
    if (!version) throw new CheckFailure(`the root package.json pins no ${name}`)
    return version
  }
  // clients.mjs starts the README's MCP client entries with the SDK's client: installed by name, not
  // found by chance as a dependency of a dsh package.
  return [`dsh-check-tsc@npm:typescript@${pinned('typescript')}`, `@types/node@${pinned('@types/node')}`, `zod@${pinned('zod')}`, `@modelcontextprotocol/client@${pinned('@modelcontextprotocol/client')}`]
}

function entriesScript(entries: readonly string[]): string {
  return `// Written by scripts/pack-check/check.ts: every public entry imports with plain node, exports
// something, and resolves for require (the preset runner resolves plugin names that way).
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const entries = ${JSON.stringify(entries)}
for (const entry of entries) {
  const module = await import(entry)
  if (!Object.keys(module).length) throw new Error(entry + ' exports nothing')
  if (!require.resolve(entry).endsWith('.js')) throw new Error(entry + ' does not resolve to JavaScript for require')
}
console.log('imported ' + entries.length + ' entries: ' + entries.join(', '))
`
}

/** A consumer's strict nodenext project; library declarations (ours included) are checked too. */
const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    rewriteRelativeImportExtensions: true,
    outDir: 'build',
    rootDir: '.',
  },
  include: ['consumer.ts', 'entries.ts', 'harness/*.ts'],
}

/**
 * Compiles the consumer project. Library declarations are checked (skipLibCheck off), and an error in
 * ours or in the consumer's files fails; one in a third party's declarations is shown, not failed on.
 */
async function compileConsumer(app: string, project = 'tsconfig.json'): Promise<void> {
  const { code, stdout } = await run('node', ['node_modules/dsh-check-tsc/bin/tsc', '-p', project, '--pretty', 'false'], { cwd: app, allowFailure: true })
  const errors = stdout.split('\n').filter((line) => / error TS\d+:/.test(line))
  const ours = errors.filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/dsh-'))
  for (const line of errors.filter((error) => !ours.includes(error))) console.log(`ignored, a third party's declarations: ${line}`)
  if (ours.length || (code !== 0 && !errors.length)) throw new CheckFailure(`${project} does not compile against the published declarations:\n${ours.length ? ours.join('\n') : stdout}`)
  console.log(`${project}: ${project === 'tsconfig.json' ? 'consumer.ts, entries.ts and examples/harness' : 'every file'} compiles`)
}

interface StatusRow {
  readonly surface: string
  readonly id: string
  readonly state: string
  readonly detail?: string
  readonly tools: readonly string[]
}

/** Prints `dsh status --json` rows and fails unless each expected row is in the expected state. */
function expectStates(label: string, stdout: string, expected: readonly (readonly [surface: string, id: string, state: string | readonly string[]])[]): StatusRow[] {
  const rows = (JSON.parse(stdout) as { capabilities: StatusRow[] }).capabilities
  for (const row of rows) console.log(`${row.surface}/${row.id}: ${row.state} [${row.tools.join(', ')}]${row.detail ? ` ${row.detail}` : ''}`)
  const state = (surface: string, id: string) => rows.find((row) => row.surface === surface && row.id === id)?.state
  const wanted = (want: string | readonly string[]): readonly string[] => (typeof want === 'string' ? [want] : want)
  const wrong = expected.filter(([surface, id, want]) => !wanted(want).includes(state(surface, id) ?? 'missing'))
  if (wrong.length) throw new CheckFailure(`${label}: ${wrong.map(([surface, id, want]) => `${surface}/${id} is ${state(surface, id) ?? 'missing'}, expected ${wanted(want).join(' or ')}`).join('; ')}`)
  return rows
}

function checkStatus(stdout: string): void {
  const rows = expectStates('dsh status', stdout, [
    ['lsp', 'typescript', 'ready'],
    ['web', 'fetch:http', 'ready'],
    ['skill', 'filesystem', 'ready'],
    ['mcp', 'dsh', 'ready'],
  ])
  const served = rows.find((row) => row.surface === 'mcp' && row.id === 'dsh')!.tools
  if (!served.includes('mcp__dsh__skill')) throw new CheckFailure(`dsh status: the mounted dsh serve offers ${served.join(', ') || 'no tools'}, not mcp__dsh__skill`)
}

/**
 * The named presets ship inside dsh-cli and resolve their rows against the packages installed beside
 * it: the servers this app installed as the docs say answer, TypeScript through its own (native) server.
 */
function checkPackagedPreset(stdout: string): void {
  const rows = expectStates('dsh status (coding)', stdout, [
    ['lsp', 'typescript', 'ready'],
    // pyright answers its handshake before it has found the workspace's files (about a second):
    // until its log says so the row is `indexing` (finding source files). The probe waits for that
    // up to probeSettleMs (10 s), so it reads `ready`; a slower machine may still read `indexing`,
    // and either state means the installed server started and answered.
    ['lsp', 'python', ['ready', 'indexing']],
    ['web', 'fetch:http', 'ready'],
    ['skill', 'filesystem', 'ready'],
  ])
  const typescript = rows.find((row) => row.surface === 'lsp' && row.id === 'typescript')
  if (!typescript?.detail?.includes('native 7.')) throw new CheckFailure(`dsh status (coding): the TypeScript row does not run TypeScript 7's own server: ${typescript?.detail}`)
}

function toArrayBuffer(buffer: Buffer): ArrayBuffer {
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer
}

try {
  await main()
} catch (error) {
  if (!(error instanceof CheckFailure)) throw error
  console.error(`\ncheck:pack failed: ${error.message}`)
  process.exitCode = 1
}

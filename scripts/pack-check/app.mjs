// A harness of someone else's, using the dsh packages as installed from npm: plain Node, no
// TypeScript, no build step, no preset. It builds its own cordis Context, loads the host services
// and the LSP, Web and Skill surfaces as plugins, lists the tools, asks the `lsp` tool for a hover
// and loads a skill, then stops everything and proves that no child process outlived it.
//
//   npm install <the dsh tarballs> typescript typescript-language-server pyright typescript-5@npm:typescript@5
//   node app.mjs
//
// `pnpm check:pack` runs it in a fresh directory outside the repository (scripts/pack-check/check.ts).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Context } from 'cordis'
import { stopHost } from 'dsh-core'
import Credentials from 'dsh-core/credentials'
import Fs from 'dsh-core/fs'
import Readiness from 'dsh-core/readiness'
import Sessions from 'dsh-core/sessions'
import Subprocess from 'dsh-core/subprocess'
import Tools from 'dsh-core/tools'
import Trust from 'dsh-core/trust'
import Lsp from 'dsh-lsp'
import * as lspStdio from 'dsh-lsp-stdio'
import Skills from 'dsh-skill'
import * as skillFs from 'dsh-skill-fs'
import * as toolSkill from 'dsh-skill/tool'
import * as toolLsp from 'dsh-tool-lsp'
import * as toolWeb from 'dsh-tool-web'
import Web from 'dsh-web'
import * as webFetchHttp from 'dsh-web-fetch-http'
import * as webSearchDeepseek from 'dsh-web-search-deepseek'

// A small TypeScript project with one project skill, the same project on TypeScript 5 (its own
// node_modules/typescript), a Python file, and an empty home directory (so the run does not depend on
// the skills of this machine's user), made fresh for this run.
const require = createRequire(import.meta.url)
const scratch = mkdtempSync(join(tmpdir(), 'dsh-app-'))
const project = join(scratch, 'project')
const home = join(scratch, 'home')
mkdirSync(home)
const write = (path, text) => {
  mkdirSync(dirname(join(project, path)), { recursive: true })
  writeFileSync(join(project, path), text)
}
write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' }, include: ['src'] }))
write('src/shapes.ts', 'export interface Circle {\n  readonly radius: number\n}\n')
write('src/main.ts', "import type { Circle } from './shapes.js'\n\nconst circle: Circle = { radius: 2 }\nexport const area = Math.PI * circle.radius ** 2\n")
write('tools/area.py', 'def area(side: float) -> float:\n    return side * side\n\n\nprint(area(2))\n')
write('.dsh/skills/release-notes/SKILL.md', '---\nname: release-notes\ndescription: How this project writes release notes. Use when asked for release notes.\n---\nOne line per change, newest first.\n')

const app = new Context()
// Each row of a preset is one `app.plugin(plugin, config)` here. Keep the forks: stopping disposes
// them in reverse order (see stop() below).
const forks = [
  // The host. Every service is the default export of its dsh-core subpath.
  app.plugin(Tools),
  app.plugin(Fs),
  app.plugin(Subprocess),
  app.plugin(Sessions),
  app.plugin(Credentials),
  app.plugin(Readiness),
  // Workspace trust: a workspace's own TypeScript, skills and .env are used only in a trusted one.
  app.plugin(Trust),
  // LSP: the seam, a stdio provider with the catalog's TypeScript and Python servers, the
  // model-facing `lsp` tool. TypeScript 7 (the one installed here) answers through its own server, a
  // project on TypeScript 5 through typescript-language-server; bare commands are found in the
  // node_modules/.bin directories above this installation.
  app.plugin(Lsp),
  app.plugin(lspStdio, { catalog: ['typescript', 'python'] }),
  app.plugin(toolLsp),
  // Web: the seam, DeepSeek search (no key here: web_search stays listed and fails with a code),
  // the guarded HTTP fetch, and the web_search / web_fetch tools.
  app.plugin(Web, { searchProvider: 'deepseek-official' }),
  app.plugin(webSearchDeepseek, { apiKeyEnv: 'DEEPSEEK_API_KEY' }),
  app.plugin(webFetchHttp),
  app.plugin(toolWeb),
  // Skills: the registry, SKILL.md discovery (the session's project and the user's home), and the
  // `skill` tool with the session catalog.
  app.plugin(Skills),
  app.plugin(skillFs, { userHome: home, dshHome: join(home, '.dsh') }),
  app.plugin(toolSkill),
]
await app.start()
await app.events.flush()
// This harness's own trust decision: the projects it made itself, under its scratch directory.
const made = realpathSync(scratch)
app.trust.decider(({ directory }) => directory.startsWith(`${made}/`))

const session = app.sessions.create({ cwd: project })
const labels = []
console.log(`tools: ${app.tools.catalog().map((tool) => tool.name).join(', ')}`)

const hover = await app.tools.execute({ name: 'lsp', arguments: { operation: 'hover', filePath: 'src/main.ts', line: 3, character: 7 }, session })
console.log(`lsp hover (${await serverOf('typescript')}):\n${text(hover)}`)
const python = await app.tools.execute({ name: 'lsp', arguments: { operation: 'hover', filePath: 'tools/area.py', line: 5, character: 7 }, session })
console.log(`lsp hover (${await serverOf('python')}):\n${text(python)}`)

// The same project on TypeScript 5: its own typescript package decides, and typescript-language-server serves it.
const legacy = join(scratch, 'legacy')
cpSync(project, legacy, { recursive: true })
mkdirSync(join(legacy, 'node_modules'))
symlinkSync(dirname(require.resolve('typescript-5/package.json')), join(legacy, 'node_modules', 'typescript'))
const legacySession = app.sessions.create({ cwd: legacy })
const legacyHover = await app.tools.execute({ name: 'lsp', arguments: { operation: 'hover', filePath: 'src/main.ts', line: 3, character: 7 }, session: legacySession })
console.log(`lsp hover (${await serverOf('typescript')}):\n${text(legacyHover)}`)
app.sessions.end(legacySession)
const hovers = [hover, python, legacyHover]

const skill = await app.tools.execute({ name: 'skill', arguments: { name: 'release-notes' }, session })
console.log(`skill:\n${text(skill)}`)

// The language server and its tsserver, started by the hover: children of this process.
const children = descendants(process.pid)
app.sessions.end(session)
await stopHost(app, forks)
const left = [...children, ...descendants(process.pid)].filter(alive)
console.log(`child processes: ${children.length} during the run, ${left.length} after stop${left.length ? ` (${left.join(', ')})` : ''}`)
rmSync(scratch, { recursive: true, force: true })

// The detail names the server chosen; it may be wrapped in an indexing title if the server started work after answering.
const expected = [/\bnative 7\./, /pyright/i, /\btsserver 5\./]
if (hovers.some((result) => result.isError) || labels.some((label, index) => !expected[index].test(label)) || skill.isError || !children.length || left.length) process.exitCode = 1

/** What answered last for server `id`, as `dsh status` names it: `native 7.0.2: …`, `tsserver 5.9.3: …`. */
async function serverOf(id) {
  const row = (await app.readiness.report()).find((candidate) => candidate.surface === 'lsp' && candidate.id === id)
  const label = row?.detail ?? `no lsp/${id} row`
  labels.push(label)
  return label
}

function text(result) {
  const body = result.content.map((block) => block.text).join('\n')
  return result.isError ? `${body} [${result.error.code}]` : body
}

/** Every descendant of `pid`, from /proc (Linux). */
function descendants(pid) {
  let children = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
  return children.flatMap((child) => [child, ...descendants(child)])
}

/** True while `pid` runs; a zombie (exited, but not yet reaped by an init that may never reap it) does not. */
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

// Usage: node .ci/clients/check.mjs <mcp-inspector bin> <claude bin>   (run.sh installs both)
//
// Serves the coding preset over `dsh serve --http` on loopback, in the repository's TypeScript test
// project, with a user skill and an overlay that lets web_fetch reach a loopback page, then:
//   1. the MCP Inspector's CLI: tools/list, and tools/call of lsp hover, web_fetch and skill;
//   2. Claude Code: `claude mcp add --transport http`, then `claude mcp list` says "Connected";
//   3. SIGTERM: dsh exits 0 and leaves no language server.
// Each client runs with a HOME of its own in a temporary directory; nothing is left behind.
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const [inspector, claude] = process.argv.slice(2)
if (!inspector || !claude) {
  console.error('usage: node .ci/clients/check.mjs <mcp-inspector bin> <claude bin>')
  process.exit(2)
}
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROJECT = join(ROOT, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const CALL_TIMEOUT_MS = 300_000 // a failure guard: a cold language server on a loaded machine

const dir = mkdtempSync(join(tmpdir(), 'dsh-ci-clients-'))
const page = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  response.end('<html><body><h1>Team notes</h1><p>Served over loopback.</p></body></html>')
})
let served
try {
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve))
  const pageUrl = `http://127.0.0.1:${page.address().port}/notes`
  const overlay = join(dir, 'loopback-fetch.yml')
  writeFileSync(overlay, '- id: web-fetch-http\n  config: { allowedCidrs: [127.0.0.0/8] }\n')
  const home = join(dir, 'dsh-home')
  mkdirSync(join(home, '.agents/skills/team-greeting'), { recursive: true })
  writeFileSync(join(home, '.agents/skills/team-greeting/SKILL.md'), '---\nname: team-greeting\ndescription: How the team says hello\n---\nSay hello to the team by name.\n')

  served = await serveHttp(['--preset', 'coding', '--config', join(ROOT, 'test-support/patient-lsp.yml'), '--config', overlay, '--cwd', PROJECT], { ...process.env, HOME: home, DSH_HOME: join(home, '.dsh') })
  const url = served.url
  console.log(`dsh serve --http: ${url}`)

  // 1. The MCP Inspector's CLI.
  const inspectorEnv = { ...process.env, HOME: join(dir, 'inspector-home') }
  const inspect = async (...args) => JSON.parse(await run(inspector, ['--cli', url, ...args], inspectorEnv))
  const names = (await inspect('--method', 'tools/list')).tools.map((tool) => tool.name)
  expect(['lsp', 'skill', 'web_fetch', 'web_search'].every((name) => names.includes(name)), `Inspector tools/list has lsp, skill, web_fetch and web_search: ${names.join(', ')}`)
  const call = (tool, ...pairs) => inspect('--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...pairs)
  const hover = await call('lsp', 'operation=hover', 'filePath=src/main.ts', 'line=4', 'character=7')
  expect(!hover.isError && JSON.stringify(hover.content).includes('const circle: Circle'), `Inspector lsp hover: ${JSON.stringify(hover)}`)
  const fetched = await call('web_fetch', `url=${pageUrl}`)
  expect(!fetched.isError && JSON.stringify(fetched.content).includes('Team notes'), `Inspector web_fetch of a loopback page: ${JSON.stringify(fetched)}`)
  const skill = await call('skill', 'name=team-greeting')
  expect(!skill.isError && JSON.stringify(skill.content).includes('Say hello to the team by name.'), `Inspector skill: ${JSON.stringify(skill).slice(0, 400)}`)

  // 2. Claude Code: its own configuration in a HOME of its own; no model is called.
  const claudeHome = join(dir, 'claude-home')
  const project = join(dir, 'claude-project')
  mkdirSync(project, { recursive: true })
  const claudeEnv = { ...process.env, HOME: claudeHome, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }
  await run(claude, ['mcp', 'add', '--transport', 'http', 'dsh', url.href], claudeEnv, project)
  const listed = await run(claude, ['mcp', 'list'], claudeEnv, project)
  expect(/^dsh: .*\(HTTP\) - .*Connected/m.test(listed), `claude mcp list shows dsh connected:\n${listed}`)
  console.log(listed.trim().split('\n').at(-1))

  // 3. A clean stop.
  const servers = descendants(served.child.pid)
  served.child.kill('SIGTERM')
  const code = await served.exited
  expect(code === 0, `dsh serve --http exits 0 on SIGTERM (got ${code})`)
  // A process group ended by a signal needs a moment to be gone from /proc.
  for (let waited = 0; servers.some(alive) && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100))
  const left = servers.filter(alive)
  expect(left.length === 0, `no language server left after SIGTERM (left: ${left.join(', ')})`)
  console.log(`ok: the Inspector CLI (tools/list, lsp hover, web_fetch, skill) and claude mcp list against dsh serve --http; ${servers.length} language server processes stopped`)
} catch (error) {
  console.error(`FAIL: ${error instanceof Error ? error.message : error}`)
  if (served) console.error(`dsh serve stderr:\n${served.stderr()}`)
  process.exitCode = 1
} finally {
  if (served && served.child.exitCode === null) served.child.kill('SIGKILL')
  page.close()
  rmSync(dir, { recursive: true, force: true })
}

function expect(condition, what) {
  if (!condition) throw new Error(what)
}

/** A client command's stdout; rejects with its output when it fails or outlasts the guard. */
function run(command, args, env, cwd = dir) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, cwd, timeout: CALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command.split('/').at(-1)} ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/** `dsh serve --http 0 …` from the repository's bin; resolves once it prints its URL. */
function serveHttp(args, env) {
  const child = spawn(process.execPath, [join(ROOT, 'packages/cli/cli/bin/dsh.mjs'), 'serve', '--http', '0', ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
      if (url) resolve({ url: new URL(url), child, exited, stderr: () => stderr })
    })
    void exited.then((code) => reject(new Error(`dsh serve --http exited (${code}) before listening:\n${stderr}`)))
  })
}

/** Every process below `pid` (its language servers), from /proc. */
function descendants(pid) {
  const children = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = read(`/proc/${entry}/stat`)
    const parent = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : undefined
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
  }
  const found = []
  for (let queue = [pid]; queue.length; ) for (const child of children.get(queue.shift()) ?? []) found.push(child), queue.push(child)
  return found
}

function alive(pid) {
  const stat = read(`/proc/${pid}/stat`)
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
}

function read(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

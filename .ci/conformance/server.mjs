#!/usr/bin/env node
// Runs the MCP conformance suite's server scenarios of one extension against `dsh serve --http`
// (issue 30: the SEP-2640 ones against the examples/skills tree), one scenario at a time.
//
//   node server.mjs <runner-dir> <core|extension> <baseline.yml> [scenario...]
//
// `core`: the scenarios of the protocol itself (issue 29), against the same served workspace.
// dsh serves a copy of examples/skills/project (trusted, so its skills load) with an empty HOME. <baseline.yml>: `server:` lists the scenarios expected to
// fail, each with a comment saying why. Exits 1 when a scenario fails that the baseline does not list.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expectedFailures } from './baseline.mjs'

const [runnerDir, extension, baselinePath, ...only] = process.argv.slice(2)
if (!runnerDir || !extension || !baselinePath) {
  console.error('usage: server.mjs <runner-dir> <extension> <baseline.yml> [scenario...]')
  process.exit(2)
}
const here = dirname(fileURLToPath(import.meta.url))
// DSH_REPO: another checkout's dsh (to try a branch's serve), else this one.
const REPO = process.env.DSH_REPO ? resolve(process.env.DSH_REPO) : resolve(here, '../..')
const DSH = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const runner = join(resolve(runnerDir), 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const runnerNode = process.env.CONFORMANCE_NODE || process.execPath

function conformance(args, options = {}) {
  return spawnSync(runnerNode, [runner, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })
}

/** One scenario run without blocking, so several run at once against the one stateless server. */
function conformanceAsync(args, timeoutMs) {
  return new Promise((done) => {
    const child = spawn(runnerNode, [runner, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (chunk) => (text += chunk))
    child.stderr.on('data', (chunk) => (text += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (status) => {
      clearTimeout(timer)
      done({ status, text })
    })
  })
}

/** Scenarios run at once (each runner is a Node process of its own; the server is one). */
const JOBS = Math.max(1, Number(process.env.CONFORMANCE_JOBS) || 4)

/**
 * The runner's server scenarios of the set: `core`, every one that is not an extension's
 * (`- tools-list [2025-06-18,…]`); otherwise the extension's (`- sep-2640-skills-… [extension]`).
 */
function scenarios() {
  const out = []
  let server = false
  for (const line of conformance(['list']).stdout.split('\n')) {
    if (/^\S/.test(line)) server = /^server scenarios/i.test(line)
    const [, name, tags] = /^\s+- (\S+)(?:\s+\[([^\]]*)\])?/.exec(line) ?? []
    if (!server || !name) continue
    if (extension === 'core' ? tags !== 'extension' : name.startsWith(`${extension}-`)) out.push(name)
  }
  return out.filter((name) => !only.length || only.includes(name))
}

/** The example tree in a temp directory, its project trusted in a fresh dsh home. */
function workspace() {
  const copy = mkdtempSync(join(tmpdir(), 'dsh-conformance-skills-'))
  cpSync(join(REPO, 'examples/skills'), copy, { recursive: true })
  const project = join(copy, 'project')
  mkdirSync(join(project, '.git'))
  // HOME empty: the project's own skills only (deploy, release-notes), each with a subdirectory, which
  // the directory scenario needs in the first listed skill (commit-message, a home skill, has none).
  const home = join(copy, 'empty-home')
  mkdirSync(home)
  const env = { ...process.env, HOME: home, DSH_HOME: join(copy, 'dsh-home'), NO_COLOR: '1' }
  const trusted = spawnSync(process.execPath, [DSH, 'trust', project], { env, encoding: 'utf8' })
  if (trusted.status !== 0) throw new Error(`dsh trust failed: ${trusted.stderr}`)
  return { project, env }
}

/** `dsh serve --http 127.0.0.1:0`: resolves with the URL it prints and the child. */
function serve({ project, env }) {
  const child = spawn(process.execPath, [DSH, 'serve', '--http', '127.0.0.1:0', '--preset', 'base', '--cwd', project], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  return new Promise((done, fail) => {
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
      if (url) done({ url, child, stderr: () => stderr })
    })
    child.on('exit', (code) => fail(new Error(`dsh serve exited with ${code} before listening:\n${stderr}`)))
  })
}

const all = scenarios()
if (!all.length) {
  console.error(`server.mjs: the runner listed no server scenarios of ${extension}`)
  process.exit(2)
}
const expected = expectedFailures(baselinePath, 'server')
const served = await serve(workspace())
const output = mkdtempSync(join(tmpdir(), `conformance-server-${extension}-`))
let passed = 0
const surprises = []
try {
  const outcomes = new Map()
  const queue = [...all]
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) outcomes.set(name, await conformanceAsync(['server', '--url', served.url, '--scenario', name, '-o', output], 300_000))
    }),
  )
  for (const name of all) {
    const { status, text } = outcomes.get(name)
    // Server runs print no OVERALL line: the exit status and the failed count decide.
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text)
    const ok = status === 0 && summary !== null && summary[3] === '0'
    const counts = summary ? ` (checks ${summary[1]}/${summary[2]}, ${summary[4]} warnings)` : ''
    if (ok) passed++
    const listed = expected.has(name)
    console.log(`${name}: ${ok ? (listed ? 'PASS (listed in the baseline: remove it)' : 'pass') : listed ? 'fail (expected, see the baseline)' : 'FAIL'}${counts}`)
    if (!ok && !listed) {
      surprises.push(name)
      for (const line of text.split('\n').filter((line) => /FAILURE|WARNING/.test(line)).slice(0, 12)) console.log(`    ${line.trim()}`)
    }
  }
} finally {
  served.child.kill('SIGTERM')
  await new Promise((done) => (served.child.exitCode !== null ? done() : served.child.once('exit', done)))
}
console.log(`conformance ${extension}, server (dsh serve --http): passed ${passed} of ${all.length} scenarios`)
console.log(`results: ${output}`)
if (surprises.length) {
  console.log(`failed and not in the baseline: ${surprises.join(', ')}`)
  process.exit(1)
}

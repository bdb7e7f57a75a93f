#!/usr/bin/env node
// Runs the MCP conformance suite's client scenarios against dsh (dsh-client.mjs), one scenario at a
// time (the runner's --suite runs them all at once, too many dsh processes for a 2-core machine).
//
//   node run.mjs <runner-dir> <revision> <baseline.yml> [scenario...]
//
// <runner-dir> holds node_modules/@modelcontextprotocol/conformance; the runner runs on the Node
// of $CONFORMANCE_NODE (else this one), dsh on the machine's Node (the first `node` on PATH).
// <revision>: 2025-11-25 runs every client scenario of the runner (0.1.16); 2026-07-28 runs the
// scenarios that revision requires, and those it runs unscored, at its wire (0.2.0-alpha.12);
// an extension's name (sep-2640) runs the runner's client scenarios of that extension (named
// <extension>-…; no revision requires them and the runner runs them off the spec timeline), scored.
// <baseline.yml>: `client:` lists the scenarios expected to fail, each with a comment saying why.
// Prints one line per scenario and how many scored scenarios passed; exits 1 when a scenario fails
// that the baseline does not list (one that passes while listed is reported, for its removal).
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expectedFailures } from './baseline.mjs'

const [runnerDir, revision, baselinePath, ...only] = process.argv.slice(2)
if (!runnerDir || !revision || !baselinePath) {
  console.error('usage: run.mjs <runner-dir> <revision> <baseline.yml> [scenario...]')
  process.exit(2)
}
const here = dirname(fileURLToPath(import.meta.url))
const runner = join(resolve(runnerDir), 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const runnerNode = process.env.CONFORMANCE_NODE || process.execPath
const client = `node ${join(here, 'dsh-client.mjs')}`
const extension = /^\d{4}-\d{2}-\d{2}$/.test(revision) ? undefined : revision
const wire = extension ? undefined : revision
const modern = wire !== undefined && wire !== '2025-11-25'
/** How long the runner lets one scenario's client (dsh, driven by dsh-client.mjs) run. */
const CLIENT_TIMEOUT_MS = Number(process.env.CONFORMANCE_CLIENT_TIMEOUT_MS || 300_000)

function conformance(args, options = {}) {
  return spawnSync(runnerNode, [runner, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })
}

/** The client scenarios of the revision: [name, scored]. */
function scenarios() {
  if (extension) return extensionScenarios()
  const listed = conformance(['list', ...(modern ? ['--requirements', wire] : [])]).stdout
  const out = []
  let section = ''
  for (const line of listed.split('\n')) {
    if (/^\S/.test(line)) section = /client/i.test(line) ? 'client' : /(not|never) scored/i.test(line) ? 'unscored' : /server/i.test(line) ? 'server' : section
    const name = /^\s+- (\S+)/.exec(line)?.[1]
    if (!name) continue
    if (section === 'client') out.push([name, true])
    // Unscored entries name their leg: keep the client ones.
    else if (section === 'unscored' && /client/.test(line)) out.push([name, false])
  }
  return out
}

/** The runner's client scenarios of the extension (`- sep-2640-client-… [extension]`), all scored. */
function extensionScenarios() {
  const out = []
  let client = false
  for (const line of conformance(['list']).stdout.split('\n')) {
    if (/^\S/.test(line)) client = /^client/i.test(line)
    const name = /^\s+- (\S+)/.exec(line)?.[1]
    if (client && name?.startsWith(`${extension}-`)) out.push([name, true])
  }
  return out
}

const expected = expectedFailures(baselinePath, 'client')
const all = scenarios().filter(([name]) => !only.length || only.includes(name))
if (!all.length) {
  console.error(`run.mjs: the runner listed no client scenarios for ${revision}`)
  process.exit(2)
}
const output = mkdtempSync(join(tmpdir(), `conformance-${revision}-`))
let passed = 0
let failed = 0
const surprises = []
for (const [name, scored] of all) {
  // A scenario runs dsh up to five times (list, login, tools, a call, a login again, the call
  // again): on a loaded 2-core machine that passed 90 s, and the runner then fails the scenario
  // after every check passed. The bound is generous; nothing here is timed.
  const run = conformance(['client', '--command', client, '--scenario', name, '--timeout', String(CLIENT_TIMEOUT_MS), '-o', output, ...(modern ? ['--spec-version', wire] : [])], { timeout: CLIENT_TIMEOUT_MS + 120_000 })
  if (run.stdout.includes('Client timed out') || run.stderr.includes('Client timed out')) console.log(`    ${name}: dsh did not finish within ${CLIENT_TIMEOUT_MS} ms (the machine's load?)`)
  const text = `${run.stdout}\n${run.stderr}`
  const ok = run.status === 0 && /OVERALL: PASSED/.test(text)
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text)
  const counts = summary ? ` (checks ${summary[1]}/${summary[2]}, ${summary[4]} warnings)` : ''
  if (scored) ok ? passed++ : failed++
  const listed = expected.has(name)
  const verdict = ok ? (listed ? 'PASS (listed in the baseline: remove it)' : 'pass') : listed ? 'fail (expected, see the baseline)' : 'FAIL'
  console.log(`${scored ? '' : '[not scored] '}${name}: ${verdict}${counts}`)
  if (ok === listed) {
    // A listed scenario that passes is reported (remove it from the baseline), not failed on: a
    // fix must never turn CI red. A failure the baseline does not explain fails the run.
    if (!ok) surprises.push(name)
    if (!ok) for (const line of text.split('\n').filter((line) => /✗|FAILURE|WARNING|- .*:/.test(line)).slice(0, 12)) console.log(`    ${line.trim()}`)
  }
}
console.log(`conformance ${revision}, client: passed ${passed} of ${passed + failed} scored scenarios`)
console.log(`results: ${output}`)
if (surprises.length) {
  console.log(`failed and not in the baseline: ${surprises.join(', ')}`)
  process.exit(1)
}

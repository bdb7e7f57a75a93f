// The longest main-thread stall of a real `dsh serve` (stdio, --preset base) while it answers one
// `resources/read` of a skill file: 6 and 16 MiB text files, an 8 MiB binary file, and a 1 KB
// SKILL.md (the same-run baseline), each the p50 of ROUNDS. The stall is measured inside dsh serve by a
// preloaded 1 ms timer (bench/serve-read-stall-probe.cjs), read over SIGUSR2 after each answer came.
//   node bench/serve-read-stall-dsh.mjs [extra dsh serve flags…]
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { z } from 'zod'

const ROUNDS = Number(process.env.ROUNDS ?? 7)
const BIN = fileURLToPath(new URL('../packages/cli/cli/bin/dsh.mjs', import.meta.url))
const PROBE = fileURLToPath(new URL('./serve-read-stall-probe.cjs', import.meta.url))
const extra = process.argv.slice(2)

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-read-stall-')))
const home = join(base, 'home')
const skills = join(home, '.agents', 'skills')
mkdirSync(join(base, 'project', '.git'), { recursive: true })
const manifest = (name) => `---\nname: ${name}\ndescription: A skill with a large file.\n---\n${'Read the data carefully.\n'.repeat(40)}`
for (const name of ['text', 'binary', 'mid']) {
  mkdirSync(join(skills, name), { recursive: true })
  writeFileSync(join(skills, name, 'SKILL.md'), manifest(name))
}
// Each under SEP-2640's 16 MiB for a whole skill: 16 MiB of text less 64 KiB, and 8 MiB of binary.
const line = 'Step: do the thing carefully and read the file.\n'
writeFileSync(join(skills, 'text', 'data.md'), line.repeat(Math.floor((16 * 1024 * 1024 - 64 * 1024) / line.length)))
const binary = Buffer.alloc(8 * 1024 * 1024)
for (let i = 0; i < binary.length; i++) binary[i] = (i * 2654435761) >>> 24
writeFileSync(join(skills, 'binary', 'data.bin'), binary)
// Under the default --max-read-bytes (8 MiB as sent): 6 MiB of text, the largest kind of answer sent whole.
writeFileSync(join(skills, 'mid', 'data.md'), line.repeat(Math.floor((6 * 1024 * 1024) / line.length)))

const stderrLines = []
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [BIN, 'serve', '--preset', 'base', '--cwd', join(base, 'project'), ...extra],
  env: { ...process.env, HOME: home, DSH_HOME: join(home, '.dsh'), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PROBE}` },
  stderr: 'pipe',
})
let waiting
transport.stderr.on('data', (chunk) => {
  for (const text of String(chunk).split('\n')) {
    const found = /^stall (\S+)/.exec(text)
    if (found && waiting) waiting(Number(found[1]))
    else if (text.trim()) stderrLines.push(text)
  }
})
const client = new Client({ name: 'bench-read-stall', version: '0' })
const Any = z.looseObject({})
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const window = () => new Promise((resolve) => {
  waiting = resolve
  process.kill(transport.pid, 'SIGUSR2')
})
const p50 = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1]

/** The longest stall of one read's window, or the error's code and message when it was refused. */
async function stallOf(uri) {
  await pause(150)
  await window()
  let outcome = 'whole'
  try {
    await client.request({ method: 'resources/read', params: { uri } }, Any)
  } catch (error) {
    outcome = `refused ${error.code} ${error.data?.code ?? ''}`.trim()
  }
  await pause(50)
  return { stall: await window(), outcome }
}

try {
  await client.connect(transport)
  // The SDK's stdio client closes the connection on a message over 10 MiB (its ReadBuffer): lifted
  // here, so that what dsh serve did before its bound (send 16 MiB whole) can be measured too.
  transport._readBuffer._maxBufferSize = Infinity
  await client.request({ method: 'skills/list', params: {} }, Any)
  const uris = { 'SKILL.md (1 KB)': 'skill://text/SKILL.md', 'data.md (6 MiB text)': 'skill://mid/data.md', 'data.md (16 MiB text)': 'skill://text/data.md', 'data.bin (8 MiB binary)': 'skill://binary/data.bin' }
  const results = Object.fromEntries(Object.keys(uris).map((name) => [name, []]))
  const outcomes = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, uri] of Object.entries(uris)) {
      const { stall, outcome } = await stallOf(uri)
      results[name].push(stall)
      outcomes[name] = outcome
    }
  }
  const small = p50(results['SKILL.md (1 KB)'])
  console.log(`dsh serve ${extra.join(' ') || '(defaults)'}: longest main-thread stall per resources/read, p50 of ${ROUNDS}, load ${loadavg()[0].toFixed(1)}`)
  for (const [name, samples] of Object.entries(results)) {
    console.log(`  ${name}: ${p50(samples).toFixed(1)} ms (${outcomes[name]}; max ${Math.max(...samples).toFixed(1)} ms), ratio to SKILL.md ${(p50(samples) / small).toFixed(1)}x`)
  }
} finally {
  await client.close().catch(() => {})
  rmSync(base, { recursive: true, force: true })
  if (stderrLines.length && process.env.BENCH_VERBOSE) console.error(stderrLines.join('\n'))
}

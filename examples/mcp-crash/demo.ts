// The supervision story in one process: a call that kills the server is a coded error, the bridge
// reconnects, the next call works, the status row tells what happened, and stopping leaves no
// server process. Run it from anywhere (the overlay's `cwd: .` is relative to the overlay file):
//   node packages/cli/cli/bin/run-ts.mjs examples/mcp-crash/demo.ts
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { bootPreset } from 'dsh-core'

const here = fileURLToPath(new URL('.', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-crash-demo-'))
process.env.CRASH_DEMO_PID_FILE = join(scratch, 'pids')

const host = await bootPreset({ preset: join(here, '../../presets/base.yml'), overlays: [join(here, 'overlay.yml')] })
const { tools, readiness } = host.app
const show = (label: string, value: unknown) => console.log(`${label}\n  ${JSON.stringify(value)}`)
try {
  show('call mcp__x__echo', await tools.execute({ name: 'mcp__x__echo', arguments: { message: 'before' } }))
  show('call mcp__x__exit', await tools.execute({ name: 'mcp__x__exit', arguments: {} }))
  show('call mcp__x__echo right away', await tools.execute({ name: 'mcp__x__echo', arguments: { message: 'during the outage' } }))
  for (let waited = 0; (await readiness.report()).find((row) => row.id === 'x')?.state !== 'ready' && waited < 10_000; waited += 50) await sleep(50)
  show('call mcp__x__echo after the reconnect', await tools.execute({ name: 'mcp__x__echo', arguments: { message: 'after' } }))
  show('status (as dsh status --json prints it)', { capabilities: await readiness.report() })
} finally {
  await host.stop()
}
const pids = readFileSync(process.env.CRASH_DEMO_PID_FILE, 'utf8').trim().split('\n').map(Number)
const alive = pids.filter((pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
})
console.log(`server processes started: ${pids.join(', ')}; still running after stop(): ${alive.length ? alive.join(', ') : 'none'}`)
rmSync(scratch, { recursive: true, force: true })

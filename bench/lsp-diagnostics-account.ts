import { createHook } from 'node:async_hooks'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BareLspClient } from './bare-lsp-client.ts'
import { complete, ours, pullSides, servicesOf, workspaceCopy } from './lsp-diagnostics.ts'
import { serverPids } from './lsp-servers.ts'

// Diagnostics after a change on TypeScript 7: where each side's CPU per change goes, counted, for
// both sides of `pnpm bench lsp-diagnostics` (ours: the file written, untimed, then fileChanged and
// the lsp_diagnostics tool; bare: its own copy written, untimed, then didChange and the pull) after
// the bench's warm-up (WARMUP changes per side, 1,000 by default, alternating as the bench does).
//
// Then ROUNDS rounds of CHANGES changes per side, the order alternating, and per side and change:
//   - this process's user and system CPU (process.cpuUsage, every thread, the untimed write outside);
//   - each of this process's threads (the main thread, V8's platform workers, libuv's pool when it
//     exists): run time (schedstat), user and system ticks (stat), and voluntary / involuntary context
//     switches (status), the untimed write inside these (they cannot be cut around it);
//   - the side's server (its process tree): the same figures;
//   - in a pass of its own, the async resources made per change (async_hooks: promises, timers, ticks, immediates).
// SIDES (default `ours,bare`) may add `baresave` (the bare client sending a didSave after its didChange, as ours
// does to this server, which asks `save: true`) and `other` (a second bare client on a third server and copy: how
// far two servers doing the same work differ).
//
//   node --conditions=dsh-built packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-account.ts
//
// GATE=/tmp/x: after the warm-up, print both processes' pids (this one and the two servers), wait
// for /tmp/x.go (attach `strace -f -ff -ttt -o /tmp/t -p <pids>` meanwhile, the process going on
// making uncounted changes so V8 does not age the path's code), then make CHANGES changes of ours,
// CHANGES of the bare client, each window fenced by a stat of `/dsh-account-<side>-start` / `-end`
// on the main thread, and wait for /tmp/x.exit. `TRACE=/tmp/t TIDS=/tmp/x.tids CHANGES=<the same>` then
// counts the system calls per change of each process and thread within the fences.

const ROUNDS = Number(process.env.ROUNDS ?? 6)
const CHANGES = Number(process.env.CHANGES ?? 200)
const WARMUP = Number(process.env.WARMUP ?? 1000)

if (process.env.TRACE) {
  countTrace(process.env.TRACE, JSON.parse(readFileSync(process.env.TIDS!, 'utf8')))
  process.exit(0)
}

const { server, mine, theirs, clean, broken, host, client, close } = await pullSides()
// SIDES=...,other: a second bare client on its own server and copy, to see how much two servers doing the same work differ.
const wantsOther = (process.env.SIDES ?? '').split(',').includes('other')
const others = wantsOther ? workspaceCopy(server) : undefined
const otherClient = others && new BareLspClient(server.executable, server.args, others.dir, { diagnostics: true, initializationOptions: server.initializationOptions })

interface ThreadFigures {
  runNs: number
  utime: number
  stime: number
  voluntary: number
  involuntary: number
  faults: number
}

/** Every thread of `pid` (and, with `tree`, of its descendants' processes), keyed `<pid>/<tid>`. */
function threadsOf(pids: readonly number[]): Map<string, ThreadFigures> {
  const figures = new Map<string, ThreadFigures>()
  for (const pid of pids) {
    let tids: string[] = []
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      try {
        const base = `/proc/${pid}/task/${tid}`
        const stat = readFileSync(`${base}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const status = readFileSync(`${base}/status`, 'utf8')
        figures.set(`${pid}/${tid}`, {
          runNs: Number(readFileSync(`${base}/schedstat`, 'utf8').split(' ')[0]),
          utime: Number(fields[11]),
          stime: Number(fields[12]),
          voluntary: Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)![1]),
          involuntary: Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)![1]),
          faults: Number(fields[7]),
        })
      } catch {
        // gone
      }
    }
  }
  return figures
}

const TICK_MS = 10
try {
  const session = host.app.sessions.create({ cwd: mine.dir })
  const services = servicesOf(host)
  await client.initialize()
  await client.open(server.file, server.languageId)
  await client.waitQuiet(120_000)
  if (otherClient) {
    await otherClient.initialize()
    await otherClient.open(server.file, server.languageId)
    await otherClient.waitQuiet(120_000)
  }
  for (let attempt = 1; !(await complete(host, session, server.file)); attempt++) {
    if (attempt === 10) throw new Error(`no complete diagnostics after ${attempt} calls`)
  }
  let round = 0
  const next = () => (round++ % 2 ? ([clean, 0] as const) : ([broken, 1] as const))
  const sides = {
    ours: {
      write: (text: string) => writeFileSync(join(mine.dir, server.file), text),
      run: (errors: number) => ours(services, session, server, errors),
    },
    bare: {
      write: (text: string) => writeFileSync(join(theirs.dir, server.file), text),
      run: async (errors: number, text: string) => {
        await client.change(server.file, text)
        const report = await client.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('bare: wrong answer')
      },
    },
    other: {
      write: (text: string) => writeFileSync(join(others?.dir ?? '', server.file), text),
      run: async (errors: number, text: string) => {
        await otherClient!.change(server.file, text)
        const report = await otherClient!.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('other: wrong answer')
      },
    },
    // The bare client with a didSave after its didChange, as ours sends TypeScript 7 (it answers `save: true`).
    baresave: {
      write: (text: string) => writeFileSync(join(theirs.dir, server.file), text),
      run: async (errors: number, text: string) => {
        await client.change(server.file, text)
        await (client as any).connection.sendNotification('textDocument/didSave', { textDocument: { uri: (client as any).uriOf(server.file) } })
        const report = await client.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('baresave: wrong answer')
      },
    },
  }
  type Side = keyof typeof sides
  const once = async (name: Side) => {
    const [text, errors] = next()
    sides[name].write(text)
    await sides[name].run(errors, text)
  }
  const serverOf: Record<Side, number[]> = { ours: serverPids(mine.dir), bare: serverPids(theirs.dir), baresave: serverPids(theirs.dir), other: others ? serverPids(others.dir) : [] }
  const CHOSEN = (process.env.SIDES ?? 'ours,bare').split(',') as Side[]
  for (let i = 0; i < WARMUP; i++) for (const name of CHOSEN) await once(name)

  const gate = process.env.GATE
  if (gate) {
    const threads = tasksOf([process.pid]).filter((tid) => tid !== String(process.pid))
    writeFileSync(`${gate}.tids`, JSON.stringify({ self: process.pid, threads, ours: tasksOf(serverOf.ours), bare: tasksOf(serverOf.bare) }))
    console.log(`ready: strace -f -ff -ttt -o <prefix> -p ${[process.pid, ...serverOf.ours, ...serverOf.bare].join(' -p ')}; then touch ${gate}.go`)
    while (!existsSync(`${gate}.go`)) for (const name of CHOSEN) await once(name)
    // A few changes under the tracer before the windows, the same for both.
    for (let i = 0; i < 20; i++) for (const name of CHOSEN) await once(name)
    for (const name of CHOSEN) {
      statSync(`/dsh-account-${name}-start`, { throwIfNoEntry: false })
      for (let i = 0; i < CHANGES; i++) await once(name)
      statSync(`/dsh-account-${name}-end`, { throwIfNoEntry: false })
    }
    console.log(`done ${CHANGES} changes per side; touch ${gate}.exit`)
    while (!existsSync(`${gate}.exit`)) await new Promise((resolve) => setTimeout(resolve, 50))
  } else {
    const own = [process.pid]
    const totals = Object.fromEntries(CHOSEN.map((name) => [name, { user: 0, system: 0, threads: new Map<string, ThreadFigures>(), server: new Map<string, ThreadFigures>() }]))
    const add = (into: Map<string, ThreadFigures>, before: Map<string, ThreadFigures>, after: Map<string, ThreadFigures>) => {
      for (const [key, figures] of after) {
        const was = before.get(key) ?? { runNs: 0, utime: 0, stime: 0, voluntary: 0, involuntary: 0, faults: 0 }
        const sum = into.get(key) ?? { runNs: 0, utime: 0, stime: 0, voluntary: 0, involuntary: 0, faults: 0 }
        for (const field of ['runNs', 'utime', 'stime', 'voluntary', 'involuntary', 'faults'] as const) sum[field] += figures[field] - was[field]
        into.set(key, sum)
      }
    }
    // MARK=1: lines around the counted rounds, to cut a `--trace-opt --trace-deopt --trace-gc` log at them.
    if (process.env.MARK === '1') console.log('-- counted rounds start')
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of r % 2 ? [...CHOSEN].reverse() : CHOSEN) {
        const side = totals[name]!
        const threadsBefore = threadsOf(own)
        const serverBefore = threadsOf(serverOf[name])
        for (let i = 0; i < CHANGES; i++) {
          const [text, errors] = next()
          sides[name].write(text)
          const cpu = process.cpuUsage()
          await sides[name].run(errors, text)
          const used = process.cpuUsage(cpu)
          side.user += used.user
          side.system += used.system
        }
        add(side.threads, threadsBefore, threadsOf(own))
        add(side.server, serverBefore, threadsOf(serverOf[name]))
      }
    }
    if (process.env.MARK === '1') console.log('-- counted rounds end')
    const n = ROUNDS * CHANGES
    const us = (value: number) => (value / n).toFixed(0).padStart(5)
    const per = (value: number) => (value / n).toFixed(2).padStart(6)
    const line = (label: string, figures: ThreadFigures) =>
      `    ${label.padEnd(26)} run ${us(figures.runNs / 1000)} µs  user ${us(figures.utime * TICK_MS * 1000)} µs  sys ${us(figures.stime * TICK_MS * 1000)} µs  switches vol ${per(figures.voluntary)}  invol ${per(figures.involuntary)}  minor faults ${per(figures.faults)}`
    const sum = (rows: Iterable<ThreadFigures>) => {
      const total = { runNs: 0, utime: 0, stime: 0, voluntary: 0, involuntary: 0, faults: 0 }
      for (const row of rows) for (const field of Object.keys(total) as (keyof ThreadFigures)[]) total[field] += row[field]
      return total
    }
    console.log(`per change, ${ROUNDS} rounds of ${CHANGES} changes per side after ${WARMUP} warm-up changes each (ticks of ${TICK_MS} ms; the untimed write inside the thread figures, outside cpuUsage)`)
    for (const name of CHOSEN) {
      const side = totals[name]!!
      console.log(`  ${name}: cpuUsage user ${us(side.user)} µs, system ${us(side.system)} µs`)
      const main = `${process.pid}/${process.pid}`
      console.log(line('main thread', side.threads.get(main)!))
      const others = [...side.threads].filter(([key]) => key !== main)
      console.log(line(`other threads (${others.length})`, sum(others.map(([, figures]) => figures))))
      for (const [key, figures] of others) if (figures.runNs / n >= 2000) console.log(line(`  thread ${key.split('/')[1]}`, figures))
      console.log(line(`server (${new Set([...side.server.keys()].map((key) => key.split('/')[0])).size} processes, ${side.server.size} threads)`, sum(side.server.values())))
    }
    // Async resources per change (a pass of its own: the hook costs).
    for (const name of CHOSEN) {
      const counts = new Map<string, number>()
      const hook = createHook({ init: (_id, type) => void counts.set(type, (counts.get(type) ?? 0) + 1) })
      hook.enable()
      for (let i = 0; i < 100; i++) await once(name)
      hook.disable()
      console.log(`  ${name}: async resources per change: ${[...counts].map(([type, count]) => `${type} ${(count / 100).toFixed(2)}`).join(', ')}`)
    }
  }
} finally {
  await otherClient?.close()
  await close()
  others?.remove()
}

/** Each thread of `pids` (their /proc task lists now), by tid. */
function tasksOf(pids: readonly number[]): string[] {
  return pids.flatMap((pid) => {
    try {
      return readdirSync(`/proc/${pid}/task`)
    } catch {
      return []
    }
  })
}

/**
 * System calls per change in an `strace -f -ff -ttt -o <prefix>` trace (a file per thread), between the main thread's
 * fences of each side's window: this process's main thread, its other threads, and the side's server (the other
 * side's server is idle then, but for its runtime's timers, and is left out).
 */
function countTrace(prefix: string, tids: { self: number; threads: string[]; ours: string[]; bare: string[] }): void {
  const dir = prefix.slice(0, prefix.lastIndexOf('/'))
  const base = prefix.slice(prefix.lastIndexOf('/') + 1)
  const files = readdirSync(dir).filter((name) => name.startsWith(`${base}.`))
  const lines = (tid: string) => readFileSync(join(dir, `${base}.${tid}`), 'utf8').split('\n')
  const windows: Record<string, [number, number]> = {}
  for (const line of lines(String(tids.self))) {
    const match = /^(\d+\.\d+) .*\/dsh-account-(\w+)-(start|end)/.exec(line)
    if (!match) continue
    const window = (windows[match[2]!] ??= [0, 0])
    window[match[3] === 'start' ? 0 : 1] = Number(match[1])
  }
  const roleOf = (tid: string): string =>
    tid === String(tids.self) ? 'main thread' : tids.threads.includes(tid) ? 'our threads' : tids.ours.includes(tid) ? 'ours server' : tids.bare.includes(tid) ? 'bare server' : 'unknown'
  for (const [side, [start, end]] of Object.entries(windows)) {
    const counts = new Map<string, number>()
    for (const file of files) {
      const tid = file.slice(base.length + 1)
      const role = roleOf(tid)
      if (role === `${side === 'ours' ? 'bare' : 'ours'} server`) continue
      for (const line of lines(tid)) {
        const match = /^(\d+\.\d+) (\w+)\(/.exec(line)
        if (!match) continue
        const at = Number(match[1])
        if (at <= start || at >= end) continue
        const key = `${role.padEnd(12)} ${match[2]}`
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
    }
    console.log(`${side}: system calls per change (${CHANGES} changes, ${(((end - start) * 1000) / CHANGES).toFixed(2)} ms each under strace)`)
    const byRole = new Map<string, number>()
    for (const [key, count] of counts) byRole.set(key.slice(0, 12), (byRole.get(key.slice(0, 12)) ?? 0) + count)
    for (const [role, count] of byRole) console.log(`  ${role} total ${(count / CHANGES).toFixed(2)}`)
    for (const [key, count] of [...counts].sort((a, b) => a[0].localeCompare(b[0]))) if (count / CHANGES >= 0.05) console.log(`  ${key.padEnd(32)} ${(count / CHANGES).toFixed(2)}`)
  }
}

import { createHook } from 'node:async_hooks'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Lifetime, untracked } from 'dsh-core'
import { CallProofs } from 'dsh-lsp'
import { complete, ours, pullSides, servicesOf } from './lsp-diagnostics.ts'

// Diagnostics after a change on TypeScript 7, this process's CPU per change entered at each layer
// (issue 27 item 2), the sides alternating ROUNDS times, CHANGES changes per side per round (median
// of the rounds, user and system apart), and promises per change (async_hooks, a pass of its own):
//
//   tool      the bench's `ours`: the file written (not timed), fileChanged, the lsp_diagnostics tool
//   seam      the same without the tools runtime, value, line text and rendering: fileChanged, then
//             `ctx.lsp.diagnostics` with the call's proofs on a Lifetime, as the tool asks
//   rewrite   the file written again with the text it has (a new mtime; not timed), fileChanged and
//             the seam's diagnostics: the read, its proof and its digest, no didChange
//   reread    fileChanged on an unwritten file, then the seam's diagnostics (the kept text serves)
//   pull      the seam's diagnostics alone, nothing written or told
//   elsewhere another file of the workspace written (not timed), nobody reads it, then `pull`
//   outside   a file outside every workspace written (not timed), then `pull`
//   body      the tool's definition called without the tools runtime: fileChanged, its execute
//   bodyrender `body` and its render
//   notice    fileChanged alone, 100 times per change
//   bare      the bench's baseline: a bare vscode-jsonrpc client's didChange and pull (no file written)
//   barewrite `bare`, its copy's file written with the new text first (not timed)
//   barepull  the bare client's pull alone
//   baresave  `bare` with a didSave after the didChange, as ours sends this server
//
// THREADS=1 adds each side's CPU per change by thread (the main thread, and V8's and libuv's helper
// threads, which process.cpuUsage counts too): after a short warm-up the tool side's extra CPU is
// mostly V8 still optimising the path's functions on its worker threads (bench/RESULTS.md, sixteenth
// session), gone after a few thousand changes.
//
//   SIDES=tool,seam,pull,bare node --conditions=dsh-built packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-layers.ts
//
// (after a build: `pnpm bench lsp-diagnostics` builds the bundles). MARK=100 prints `change <n>` every
// 100 warm-up changes (read beside `node --trace-opt`). WARMUP (default 1000) changes per
// side first, so V8 has optimised most of the path (it goes on for a few thousand: THREADS=1 shows it).

const ROUNDS = Number(process.env.ROUNDS ?? 8)
const CHANGES = Number(process.env.CHANGES ?? 200)
const WARMUP = Number(process.env.WARMUP ?? 1000)
const { server, mine, theirs, clean, broken, host, client, close } = await pullSides()
try {
  const session = host.app.sessions.create({ cwd: mine.dir })
  const services = servicesOf(host)
  const lsp = untracked((host.app as any).lsp)
  const files = untracked((host.app as any).fs)
  await client.initialize()
  await client.open(server.file, server.languageId)
  await client.waitQuiet(120_000)
  for (let attempt = 1; !(await complete(host, session, server.file)); attempt++) {
    if (attempt === 10) throw new Error(`no complete diagnostics after ${attempt} calls`)
  }
  const seamCall = async () => {
    const call = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    try {
      return await lsp.diagnostics({ filePath: server.file, workspaceRoot: mine.dir, proofs: new CallProofs(files, mine.dir) }, call)
    } finally {
      call.dispose()
    }
  }
  // The tool's own definition, called as the runtime calls it but without the runtime (`body`, `bodyrender`).
  const definition = untracked((host.app as any).tools).lookup('lsp_diagnostics').definition
  const bodyCall = async (render: boolean) => {
    const lifetime = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    const args = Object.freeze({ filePath: server.file, severity: 'error' })
    try {
      const value = await definition.execute(args, { callId: 'bench', name: 'lsp_diagnostics', lifetime, session, progress: () => {}, get signal() { return lifetime.signal } })
      if (render) definition.render(args, value)
      return value as { total: number; complete: boolean }
    } finally {
      lifetime.dispose()
    }
  }
  let round = 0
  let writes = 0
  const next = () => (round++ % 2 ? ([clean, 0] as const) : ([broken, 1] as const))
  const errorsIn = (items: readonly { severity: string }[]) => items.filter((item) => item.severity === 'error').length
  // Each side's work per change, the write of our copy not included (returned as the untimed part).
  const sides: Record<string, { before?: (text: string) => void; run: (text: string, errors: number) => Promise<void> }> = {
    bare: {
      run: async (text, errors) => {
        await client.change(server.file, text)
        const report = await client.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('bare: wrong answer')
      },
    },
    // The bare client's pull alone (no change), and its change with a didSave after the didChange as ours sends to this server.
    barepull: {
      run: async () => {
        await client.pull(server.file)
      },
    },
    baresave: {
      run: async (text, errors) => {
        const version = await client.change(server.file, text)
        void version
        await (client as any).connection.sendNotification('textDocument/didSave', { textDocument: { uri: (client as any).uriOf(server.file) } })
        const report = await client.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('baresave: wrong answer')
      },
    },
    // The bare client's change after the same write of its own copy of the file that ours' side makes (untimed).
    barewrite: {
      before: (text) => writeFileSync(join(theirs.dir, server.file), text),
      run: async (text, errors) => {
        await client.change(server.file, text)
        const report = await client.pull(server.file)
        if (report.items.filter((item) => (item.severity ?? 1) === 1).length !== errors) throw new Error('barewrite: wrong answer')
      },
    },
    tool: { before: (text) => writeFileSync(join(mine.dir, server.file), text), run: (_text, errors) => ours(services, session, server, errors) },
    seam: {
      before: (text) => writeFileSync(join(mine.dir, server.file), text),
      run: async (_text, errors) => {
        services.fileChanged(server.file, { session })
        const answer = await seamCall()
        if (errorsIn(answer.items) !== errors || !answer.complete) throw new Error('seam: wrong answer')
      },
    },
    body: {
      before: (text) => writeFileSync(join(mine.dir, server.file), text),
      run: async (_text, errors) => {
        services.fileChanged(server.file, { session })
        const value = await bodyCall(false)
        if (value.total !== errors || !value.complete) throw new Error('body: wrong answer')
      },
    },
    bodyrender: {
      before: (text) => writeFileSync(join(mine.dir, server.file), text),
      run: async (_text, errors) => {
        services.fileChanged(server.file, { session })
        const value = await bodyCall(true)
        if (value.total !== errors || !value.complete) throw new Error('bodyrender: wrong answer')
      },
    },
    notice: {
      run: async () => {
        for (let i = 0; i < 100; i++) services.fileChanged(server.file, { session })
      },
    },
    // The notice and the pull on a file rewritten with the text the server has: the read and its digest, no didChange.
    reread: {
      run: async () => {
        services.fileChanged(server.file, { session })
        const answer = await seamCall()
        if (!answer.complete) throw new Error('reread: incomplete')
      },
    },
    // The file written again with the text it has (a new mtime): read, proven and hashed, no didChange.
    rewrite: {
      before: () => writeFileSync(join(mine.dir, server.file), readFileSync(join(mine.dir, server.file))),
      run: async () => {
        services.fileChanged(server.file, { session })
        const answer = await seamCall()
        if (!answer.complete) throw new Error('rewrite: incomplete')
      },
    },
    // Another file written (one nobody reads), then the plain pull: what a write costs this process afterwards.
    elsewhere: {
      before: () => writeFileSync(join(mine.dir, 'other.txt'), `${writes++}`),
      run: async () => {
        const answer = await seamCall()
        if (!answer.complete) throw new Error('elsewhere: incomplete')
      },
    },
    // A file written outside every workspace, then the plain pull.
    outside: {
      before: () => writeFileSync(join(mine.dir, '..', 'outside.txt'), `${writes++}`),
      run: async () => {
        const answer = await seamCall()
        if (!answer.complete) throw new Error('outside: incomplete')
      },
    },
    pull: {
      run: async () => {
        const answer = await seamCall()
        if (!answer.complete) throw new Error('pull: incomplete')
      },
    },
  }
  const chosen = (process.env.SIDES ?? 'bare,tool,seam,pull').split(',')
  // `pull` asks about the text the last side left: keep the file and the bare client's text in step.
  const once = async (name: string) => {
    const side = sides[name]!
    if (['pull', 'notice', 'barepull', 'reread', 'rewrite', 'elsewhere', 'outside'].includes(name)) {
      side.before?.('')
      return side.run('', 0)
    }
    const [text, errors] = next()
    side.before?.(text)
    return side.run(text, errors)
  }
  // MARK=100: a line `change <n>` every 100 warm-up changes, so that `node --trace-opt`'s lines (on
  // the same stdout) tell after how many changes each function of the path was optimised.
  const mark = Number(process.env.MARK ?? 0)
  for (let i = 0; i < WARMUP; i++) {
    if (mark && i % mark === 0) console.log(`change ${i}`)
    for (const name of chosen) await once(name)
  }
  // GATE=/tmp/x PHASES=100,400: counted windows for a counter attached from outside (strace -c -f -p,
  // callgrind_control), after the warm-up: for each phase k, print `ready <pid> <k>`, wait for /tmp/x.go<k>,
  // make that many changes of each chosen side, print `done <pid> <k>`; then wait for /tmp/x.exit and stop.
  // Two phases of N and 4N changes make the count differential (the windows' fixed ends cancel).
  // GATE_BUSY=1: the process goes on making (uncounted) changes while it waits for a window to open,
  // and idles only from a window's end until `<gate>.dumped<k>` (the counter's dump): an idle process
  // lets V8 age and flush the path's code, and a window after a wait of seconds re-counted the tier-up
  // (bench/RESULTS.md, eighteenth session). At most a change or two runs between the counter's zero
  // and the go file being seen; the same in both windows, so the differential cancels it.
  const gate = process.env.GATE
  if (gate) {
    const busy = process.env.GATE_BUSY === '1'
    const until = async (path: string, working = false) => {
      while (!existsSync(path)) {
        if (working) for (const name of chosen) await once(name)
        else await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    const phases = (process.env.PHASES ?? '100,400').split(',').map(Number)
    for (const [k, count] of phases.entries()) {
      console.log(`ready ${process.pid} ${k}`)
      await until(`${gate}.go${k}`, busy)
      for (let i = 0; i < count; i++) for (const name of chosen) await once(name)
      console.log(`done ${process.pid} ${k}`)
      if (busy) await until(`${gate}.dumped${k}`)
    }
    await until(`${gate}.exit`, busy)
  }
  const figures: Record<string, { user: number[]; system: number[] }> = {}
  // THREADS=1: each round's CPU by thread (schedstat, ns; the untimed writes included), the main thread against the others.
  const byThread = process.env.THREADS === '1'
  const threadNs = (): Map<string, number> => {
    const times = new Map<string, number>()
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
        const key = tid === String(process.pid) ? 'main' : `${name}:${tid}`
        times.set(key, (times.get(key) ?? 0) + Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]))
      } catch {}
    }
    return times
  }
  const threadFigures: Record<string, Map<string, number[]>> = {}
  for (let r = 0; !gate && r < ROUNDS; r++) {
    for (const name of r % 2 ? [...chosen].reverse() : chosen) {
      let user = 0
      let system = 0
      const threadsBefore = byThread ? threadNs() : undefined
      for (let i = 0; i < CHANGES; i++) {
        const side = sides[name]!
        const [text, errors] = ['pull', 'notice', 'barepull', 'reread', 'rewrite', 'elsewhere', 'outside'].includes(name) ? (['', 0] as const) : next()
        side.before?.(text)
        const cpu = process.cpuUsage()
        await side.run(text, errors)
        const used = process.cpuUsage(cpu)
        user += used.user
        system += used.system
      }
      if (threadsBefore) {
        const mine = (threadFigures[name] ??= new Map())
        for (const [key, ns] of threadNs()) {
          if (!mine.has(key)) mine.set(key, [])
          mine.get(key)!.push((ns - (threadsBefore.get(key) ?? 0)) / 1000 / CHANGES)
        }
      }
      ;(figures[name] ??= { user: [], system: [] }).user.push(user / CHANGES)
      figures[name]!.system.push(system / CHANGES)
    }
  }
  if (!gate) {
    const promises: Record<string, number> = {}
    const others: Record<string, string> = {}
    for (const name of chosen) {
      const counts = new Map<string, number>()
      const hook = createHook({ init: (_id, type) => void counts.set(type, (counts.get(type) ?? 0) + 1) })
      hook.enable()
      for (let i = 0; i < 100; i++) await once(name)
      hook.disable()
      promises[name] = (counts.get('PROMISE') ?? 0) / 100
      others[name] = [...counts].filter(([type]) => type !== 'PROMISE').map(([type, count]) => `${type} ${(count / 100).toFixed(2)}`).join(', ')
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.log(`CPU per change, µs, median of ${ROUNDS} rounds of ${CHANGES} changes per side after ${WARMUP} warm-up changes each (user + system = total; range of totals); promises and other async resources per change`)
    for (const name of chosen) {
      const { user, system } = figures[name]!
      const totals = user.map((value, index) => value + system[index]!)
      console.log(`  ${name.padEnd(5)} ${median(user).toFixed(0).padStart(5)} + ${median(system).toFixed(0).padStart(4)} = ${median(totals).toFixed(0).padStart(5)}  (${Math.min(...totals).toFixed(0)}-${Math.max(...totals).toFixed(0)})  promises ${promises[name]!.toFixed(1)}; ${others[name]}`)
    }
    if (byThread) {
      console.log('CPU per change by thread, µs (schedstat, median of the rounds, the untimed writes included): the main thread, then the others together and each that worked')
      for (const name of chosen) {
        const threads = [...threadFigures[name]!].map(([key, values]) => [key, median(values)] as const)
        const others = threads.filter(([key]) => key !== 'main')
        const busy = others.filter(([, value]) => value >= 0.5).map(([key, value]) => `${key} ${value.toFixed(0)}`).join(', ')
        console.log(`  ${name.padEnd(10)} main ${median(threadFigures[name]!.get('main')!).toFixed(0)}, others ${others.reduce((sum, [, value]) => sum + value, 0).toFixed(0)}${busy ? ` (${busy})` : ''}`)
      }
    }
  }
} finally {
  await close()
}

import { createHook } from 'node:async_hooks'
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { Session as Inspector } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileSystem, Lifetime, untracked } from 'dsh-core'
import { bootCoding, fixtureCopy, NATIVE, REPO, TSSERVER, untilSettled } from './lsp-servers.ts'

// What one warm `lsp` call does, on bench/lsp.ts's fixture and queries through the coding preset,
// TypeScript 7's server (PROBE_SERVER=tsserver for the other). Counts and the server's own word,
// which a loaded machine does not blur as it blurs wall times (issue 27 item 2; bench/RESULTS.md):
//   PROBE=counts (default)  per operation: locations and files answered; ctx.fs and node:fs calls,
//                           promises, lifetimes and abort controllers per call
//   PROBE=server            the server's own time per request (TypeScript 7 logs "handled method
//                           … in …"), ours against a bare client on its own copy; BARE_KEEP=1 makes
//                           that client keep its documents open, BARE_DIAG=1 declare diagnostics
//   PROBE=messages          what the server sends after each request
//   PROBE=promises OP=…     where one operation's promises are made (OWNER=1: by the first frame of ours)
//   PROBE=profile OP=… CALLS=2000 WARMUP=0   a CPU profile of the calls alone (the inspector, 100 µs sampling)
//   PROBE=cpu CALLS=2000 WARMUP=2000  this process's CPU per warm call, each operation in turn
//   PROBE=layers CALLS=300 ROUNDS=8 WARMUP=1000  CPU per call entered at the tool, the seam, a kept client, the floor
//   PROBE=side SIDE=ours|kept|floor N=50  one side alone, to run under strace -c (see there);
//                           SIDE=rotate the three in turn as lsp-fixed-cost takes them (ROTATE_FIRST=own:
//                           a floor on a server of its own in ours' place); GATE=/tmp/x waits for
//                           /tmp/x.go before the counted calls, for strace -p / callgrind_control
//   PROBE=floor CALLS=1000 WARMUP=2000 [PROFILE=1]  ours and the contract floor (lsp-contract-floor.ts) each alone: CPU per call, profiles
// Run on the built packages (`pnpm bench lsp` builds them):
//   PROBE=server node --conditions=dsh-built packages/cli/cli/bin/run-ts.mjs bench/lsp-probe.ts

const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const CASES = [
  { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 },
  { operation: 'findReferences', filePath: 'src/shapes.ts', line: 12, character: 17 },
  { operation: 'goToImplementation', filePath: 'src/shapes.ts', line: 1, character: 18 },
  { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 },
]
const METHODS: Record<string, string> = { goToDefinition: 'textDocument/definition', findReferences: 'textDocument/references', goToImplementation: 'textDocument/implementation', hover: 'textDocument/hover' }
const server = process.env.PROBE_SERVER === 'tsserver' ? TSSERVER : NATIVE
/** EXTRA_FILES=k: k more files in each copy, each using the fixture's Circle; OPEN_EXTRA=1: ours asks about each first (so keeps them open). */
const EXTRA_FILES = Number(process.env.EXTRA_FILES ?? 0)
function withExtraFiles(copy: ReturnType<typeof fixtureCopy>): ReturnType<typeof fixtureCopy> {
  for (let i = 0; i < EXTRA_FILES; i++) fs.writeFileSync(join(copy.dir, `src/extra${i}.ts`), `import { Circle } from './shapes'\nexport const c${i} = new Circle(${i})\n`)
  return copy
}
const workspace = withExtraFiles(fixtureCopy(FIXTURE, server, 'dsh-probe-'))
// dsh starts TypeScript 7 with warnings-only logging (typescript.ts); PROBE=server reads the
// server's "handled method" lines, so ours logs at Info (3) there, as the bare client's does.
if (process.env.PROBE === 'server' && !process.env.BENCH_LSP_OVERLAY) {
  const overlay = join(tmpdir(), `dsh-probe-overlay-${process.pid}.yml`)
  fs.writeFileSync(overlay, '- id: lsp-stdio\n  config:\n    servers:\n      typescript: { initializationOptions: { logVerbosity: 3 } }\n')
  process.env.BENCH_LSP_OVERLAY = overlay
}
const host = await bootCoding()
const counts = new Map<string, number>()
const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1)

/** A kept client (documents kept open, diagnostics declared, as dsh) on its own copy, warm and settled, and the contract's floor on it. */
async function keptAndFloor(prefix: string) {
  const { BareLspClient } = await import('./bare-lsp-client.ts')
  const { ContractFloorClient } = await import('./lsp-contract-floor.ts')
  const copy = withExtraFiles(fixtureCopy(FIXTURE, server, prefix))
  const kept = new BareLspClient(server.executable, server.args, copy.dir, { keepOpen: true, diagnostics: true, initializationOptions: server.initializationOptions })
  await kept.initialize()
  const floorClient = new ContractFloorClient(kept, copy.dir)
  const floor = (args: (typeof CASES)[number]) => floorClient.query(METHODS[args.operation]!, args.filePath, 'typescript', args.line - 1, args.character - 1)
  for (const args of CASES) await kept.query(METHODS[args.operation]!, args.filePath, 'typescript', args.line - 1, args.character - 1)
  await kept.waitQuiet(60_000)
  await untilSettled(copy)
  return { copy, kept, floor }
}

function wrap<T extends object>(owner: T, key: keyof T & string, label: string): void {
  const original = owner[key] as unknown as (...args: unknown[]) => unknown
  ;(owner as Record<string, unknown>)[key] = function (this: unknown, ...args: unknown[]) {
    count(label)
    return original.apply(this, args)
  }
}

try {
  // What a harness holds: execute taken once (docs/architecture.md, "Helpers"); a read of
  // ctx.tools.execute per call is cordis's tracing work, not the lsp path's (bench/RESULTS.md, web_fetch).
  const { execute } = host.app.tools
  const session = host.app.sessions.create({ cwd: workspace.dir })
  let last: any
  const call = async (args: (typeof CASES)[number]) => {
    const result = await execute({ name: 'lsp', arguments: args, session })
    if (result.isError) throw new Error(`${args.operation}: ${result.error.code} ${result.error.message}`)
    last = result.value
  }
  for (const args of CASES) await call(args)
  await untilSettled(workspace)
  for (let i = 0; i < 20; i++) for (const args of CASES) await call(args)

  if (process.env.PROBE === 'server') {
    // How long the server says it took (its log's "handled method … in …"), ours against a bare client's, per operation.
    const { BareLspClient } = await import('./bare-lsp-client.ts')
    const copy = withExtraFiles(fixtureCopy(FIXTURE, server, 'dsh-probe-bare-'))
    const client = new BareLspClient(server.executable, server.args, copy.dir, { diagnostics: Boolean(process.env.BARE_DIAG), keepOpen: Boolean(process.env.BARE_KEEP) })
    await client.initialize()
    const parse = JSON.parse
    let side = ''
    const handled: Record<string, number[]> = {}
    JSON.parse = function (text: string, reviver?: any) {
      const value = parse(text, reviver)
      const match = value?.method === 'window/logMessage' && /^handled method '([^']+)' \(\d+\) in ([\d.]+)(µs|ms)$/.exec(value.params.message)
      if (match) (handled[`${side} ${match[1]}`] ??= []).push(Number(match[2]) * (match[3] === 'ms' ? 1000 : 1))
      return value
    }
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20))
    for (const args of CASES) await client.query(METHODS[args.operation]!, args.filePath, 'typescript', args.line - 1, args.character - 1)
    await client.waitQuiet(60_000)
    await untilSettled(copy)
    const N = Number(process.env.N ?? 100)
    if (process.env.OPEN_EXTRA) for (let i = 0; i < EXTRA_FILES; i++) await call({ operation: 'hover', filePath: `src/extra${i}.ts`, line: 2, character: 14 })
    for (const args of CASES) {
      const method = METHODS[args.operation]!
      for (let i = 0; i < N; i++) {
        side = 'ours'
        await call(args)
        await pause()
        side = 'bare'
        await client.query(method, args.filePath, 'typescript', args.line - 1, args.character - 1)
        await pause()
      }
    }
    JSON.parse = parse
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    for (const [key, values] of Object.entries(handled).sort()) console.log(`${key.padEnd(35)} n ${values.length}  server's p50 ${median(values).toFixed(0)} µs`)
    await client.close()
    copy.remove()
  } else if (process.env.PROBE === 'messages') {
    // The JSON-RPC messages one call of each operation receives (JSON.parse of a framed message).
    const parse = JSON.parse
    let seen: string[] = []
    JSON.parse = function (text: string, reviver?: any) {
      const value = parse(text, reviver)
      if (value && typeof value === 'object' && value.jsonrpc === '2.0') seen.push(`${value.method ?? `response ${value.id}`}${value.method === 'window/logMessage' ? ` ${JSON.stringify(value.params.message).slice(0, 300)}` : ''}${value.params?.value?.kind ? ` ${value.params.value.kind}` : ''}${value.method === 'textDocument/publishDiagnostics' ? ` ${value.params.uri.split('/').pop()} v${value.params.version}` : ''}`)
      return value
    }
    for (const args of CASES) {
      for (let i = 0; i < 2; i++) {
        seen = []
        await call(args)
        await new Promise((resolve) => setTimeout(resolve, 100))
        console.log(`${args.operation}: ${seen.join(' | ')}`)
      }
    }
    JSON.parse = parse
  } else if (process.env.PROBE === 'promises') {
    // Where the promises of one operation's calls are made: the first frames outside node's internals.
    const op = CASES.find((c) => c.operation === (process.env.OP ?? 'findReferences'))!
    const N = Number(process.env.N ?? 20)
    const sites = new Map<string, number>()
    Error.stackTraceLimit = 12
    const hook = createHook({
      init: (_id, type) => {
        if (type !== 'PROMISE') return
        const frames = (new Error().stack ?? '').split('\n').slice(2).filter((line) => !line.includes('node:internal') && !line.includes('async_hooks')).slice(0, Number(process.env.FRAMES ?? 2))
        if (process.env.OWNER) {
          const owner = frames.find((line) => /packages\/|vscode-jsonrpc|bench\//.test(line)) ?? frames[0] ?? '?'
          const key = owner.trim().replace(/^at /, '').replace(/\(.*\/(packages|node_modules\/\.pnpm)\//, '($1/').replace(/:\d+\)$/, ')')
          sites.set(key, (sites.get(key) ?? 0) + 1)
          return
        }
        const key = frames.map((line) => line.trim().replace(/^at /, '').replace(/file:\/\/\/work\/wt\/lsp\//, '')).join(' < ')
        sites.set(key, (sites.get(key) ?? 0) + 1)
      },
    })
    hook.enable()
    for (let i = 0; i < N; i++) await call(op)
    hook.disable()
    for (const [site, n] of [...sites].sort((a, b) => b[1] - a[1])) console.log(`${(n / N).toFixed(1).padStart(6)}  ${site}`)
  } else if (process.env.PROBE === 'cpu') {
    // This process's CPU per warm call, each operation in turn (CALLS each after WARMUP rounds of all
    // four): our side alone, the server's CPU being another process's. Less blurred by a loaded
    // machine than wall times, though not immune (caches, frequency).
    const calls = Number(process.env.CALLS ?? 2000)
    for (let i = 0; i < Number(process.env.WARMUP ?? 2000); i++) for (const args of CASES) await call(args)
    const figures: string[] = []
    for (const args of CASES) {
      const cpu = process.cpuUsage()
      for (let i = 0; i < calls; i++) await call(args)
      const used = process.cpuUsage(cpu)
      figures.push(`${args.operation} ${((used.user + used.system) / calls).toFixed(1)} µs`)
    }
    console.log(`CPU per call (${calls} calls each): ${figures.join(', ')}`)
  } else if (process.env.PROBE === 'floor') {
    // Ours against the contract's floor (lsp-contract-floor.ts, a kept client on its own copy), each
    // side CALLS rounds of the four operations alone, after WARMUP rounds of both: this process's
    // CPU per call of each, and with PROFILE=1 a CPU profile of each side's loop (to compare by function).
    const { copy, kept, floor } = await keptAndFloor('dsh-probe-floor-')
    const calls = Number(process.env.CALLS ?? 1000)
    for (let i = 0; i < Number(process.env.WARMUP ?? 2000); i++) for (const args of CASES) await Promise.all([call(args), floor(args)])
    const sides = { ours: call, floor } as Record<string, (args: (typeof CASES)[number]) => Promise<unknown>>
    // Per call of each side: promises, timers, immediates and ticks made (what each side's path schedules).
    const made = new Map<string, number>()
    const hook = createHook({ init: (_id, type) => void made.set(type, (made.get(type) ?? 0) + 1) })
    for (const [name, side] of Object.entries(sides)) {
      made.clear()
      hook.enable()
      for (let i = 0; i < 50; i++) for (const args of CASES) await side(args)
      hook.disable()
      console.log(`${name.padEnd(5)} per call: ${[...made].sort().map(([type, n]) => `${type} ${(n / 50 / CASES.length).toFixed(2)}`).join(', ')}`)
    }
    // Where each side's wall time goes, per call: before its request's pipe write, from that write to
    // the answer's first bytes (the server and the wake-ups), and from those bytes to the answer (p50s).
    const { Socket } = await import('node:net')
    const write = Socket.prototype.write
    const push = Socket.prototype.push
    let wroteAt = 0
    let readAt = 0
    Socket.prototype.write = function (this: InstanceType<typeof Socket>, ...args: any[]) {
      if (!wroteAt) wroteAt = performance.now()
      return (write as any).apply(this, args)
    } as typeof write
    Socket.prototype.push = function (this: InstanceType<typeof Socket>, ...args: any[]) {
      if (wroteAt && !readAt && args[0] != null) readAt = performance.now()
      return (push as any).apply(this, args)
    } as typeof push
    const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    // The tenth percentile: the phase's time when nothing preempted it, which a loaded machine moves far less than the median.
    const p10 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 10)]!
    for (const round of [1, 2]) {
      for (const [name, side] of Object.entries(sides)) {
        const phases = [[], [], [], []] as number[][]
        for (let i = 0; i < Math.min(calls, 500); i++) {
          for (const args of CASES) {
            wroteAt = readAt = 0
            const began = performance.now()
            await side(args)
            const ended = performance.now()
            phases[0]!.push(wroteAt - began)
            phases[1]!.push(readAt - wroteAt)
            phases[2]!.push(ended - readAt)
            phases[3]!.push(ended - began)
          }
        }
        const at = (values: number[]) => `${(p10(values) * 1000).toFixed(0)} / ${(p50(values) * 1000).toFixed(0)}`
        console.log(`phases ${round} ${name.padEnd(5)} p10 / p50 µs: to the write ${at(phases[0]!)}, write to answer ${at(phases[1]!)}, answer to result ${at(phases[2]!)}, whole ${at(phases[3]!)}`)
      }
    }
    Socket.prototype.write = write
    Socket.prototype.push = push
    const inspector = new Inspector()
    inspector.connect()
    await inspector.post('Profiler.enable')
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 })
    for (const round of [1, 2]) {
      for (const [name, side] of Object.entries(round === 1 ? sides : { floor: sides.floor!, ours: sides.ours! })) {
        if (process.env.PROFILE) await inspector.post('Profiler.start')
        const cpu = process.cpuUsage()
        const began = performance.now()
        for (let i = 0; i < calls; i++) for (const args of CASES) await side(args)
        const wall = performance.now() - began
        const used = process.cpuUsage(cpu)
        let file = ''
        if (process.env.PROFILE) {
          const { profile } = await inspector.post('Profiler.stop')
          file = join(tmpdir(), `dsh-probe-${name}-${round}-${process.pid}.cpuprofile`)
          fs.writeFileSync(file, JSON.stringify(profile))
        }
        console.log(`round ${round} ${name.padEnd(5)} CPU per call ${((used.user + used.system) / calls / CASES.length).toFixed(1)} µs (user ${(used.user / calls / CASES.length).toFixed(1)}), wall ${((wall * 1000) / calls / CASES.length).toFixed(1)} µs ${file}`)
      }
    }
    inspector.disconnect()
    await kept.close()
    copy.remove()
  } else if (process.env.PROBE === 'side') {
    // One side alone, N calls of each operation after WARMUP rounds: run it under strace twice (N=50,
    // then N=550) and divide the difference by 2000 for the system calls per call of SIDE (ours,
    // kept, floor) on the main thread (strace without -f):
    //   strace -c -o /tmp/ours-550.txt env PROBE=side SIDE=ours N=550 node --conditions=dsh-built packages/cli/cli/bin/run-ts.mjs bench/lsp-probe.ts
    const { copy, kept, floor } = await keptAndFloor('dsh-probe-side-')
    const sides: Record<string, (args: (typeof CASES)[number]) => Promise<unknown>> = {
      ours: call,
      kept: (args) => kept.query(METHODS[args.operation]!, args.filePath, 'typescript', args.line - 1, args.character - 1),
      floor,
    }
    // SIDE=rotate: ours, kept and floor one after another, who goes first rotating each round, as
    // `lsp-fixed-cost` with the floor takes them: ours' server sits out the other two calls, the
    // kept client's server answers the kept client and the floor back to back in two rounds of three.
    // ROTATE_FIRST=own: the floor on a kept client and server of its own in ours' place (a second copy), to
    // compare what one side costs the process among the others' calls (caches, predictors) with ours.
    let round = 0
    const own = process.env.ROTATE_FIRST === 'own' ? await keptAndFloor('dsh-probe-own-') : undefined
    sides.rotate = async (args) => {
      const order = [own ? own.floor : sides.ours!, sides.kept!, sides.floor!]
      for (let k = 0; k < order.length; k++) await order[(round + k) % order.length]!(args)
      round++
    }
    const side = sides[process.env.SIDE ?? 'ours']!
    for (let i = 0; i < Number(process.env.WARMUP ?? 200); i++) for (const args of CASES) await side(args)
    // Young-generation collections per call: what the side allocates, in units of a scavenge.
    const { PerformanceObserver, constants } = await import('node:perf_hooks')
    let scavenges = 0
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if ((entry as any).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++
    })
    observer.observe({ entryTypes: ['gc'] })
    const n = Number(process.env.N ?? 50)
    // GATE=/tmp/x: warm, then wait for /tmp/x.go before the counted calls and for /tmp/x.exit after
    // them, so that `strace -f -c -p <pid>` (every thread of this process, not the servers) sees
    // the counted calls alone; bench/RESULTS.md (sixteenth session) has the script.
    const gate = process.env.GATE
    const until = async (file: string) => {
      while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    if (gate) {
      console.log(`ready ${process.pid}`)
      await until(`${gate}.go`)
    }
    for (const args of CASES) for (let i = 0; i < n; i++) await side(args)
    if (gate) {
      console.log('done')
      await until(`${gate}.exit`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    observer.disconnect()
    const { getHeapSpaceStatistics } = await import('node:v8')
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
    console.log(`${process.env.SIDE ?? 'ours'}: ${scavenges} scavenges in ${n * CASES.length} calls (new space ${((young?.space_size ?? 0) / 1048576).toFixed(1)} MB)`)
    await kept.close()
    copy.remove()
    await own?.kept.close()
    own?.copy.remove()
  } else if (process.env.PROBE === 'layers') {
    // This process's CPU per warm call entered at each layer, the four operations in turn, the
    // sides alternating ROUNDS times (median of the rounds): the tool through `execute`; the seam
    // (`ctx.lsp.query` with the call's proofs, on a Lifetime as the tool asks); a kept client
    // (vscode-jsonrpc, documents kept open) and the contract's floor on it (lsp-contract-floor.ts).
    const { CallProofs } = await import('dsh-lsp')
    const { copy, kept, floor } = await keptAndFloor('dsh-probe-layers-')
    // Held as the tool holds them (untracked: a member read through cordis's tracking proxy builds a function proxy per call).
    const lsp = untracked((host.app as any).lsp)
    const files = untracked((host.app as any).fs)
    const seam = async (args: (typeof CASES)[number]) => {
      // What the tools runtime gives a call: a root Lifetime with the tool's deadline.
      const call = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
      try {
        return await lsp.query({ operation: args.operation, filePath: args.filePath, position: { line: args.line - 1, character: args.character - 1 }, workspaceRoot: workspace.dir, proofs: new CallProofs(files, workspace.dir) }, call)
      } finally {
        call.dispose()
      }
    }
    const sides: Record<string, (args: (typeof CASES)[number]) => Promise<unknown>> = {
      tool: call,
      seam,
      kept: (args) => kept.query(METHODS[args.operation]!, args.filePath, 'typescript', args.line - 1, args.character - 1),
      floor,
    }
    for (let i = 0; i < Number(process.env.WARMUP ?? 1000); i++) for (const args of CASES) for (const side of Object.values(sides)) await side(args)
    const calls = Number(process.env.CALLS ?? 300)
    const figures: Record<string, number[]> = {}
    for (let round = 0; round < Number(process.env.ROUNDS ?? 8); round++) {
      for (const [name, side] of Object.entries(sides)) {
        const cpu = process.cpuUsage()
        for (let i = 0; i < calls; i++) for (const args of CASES) await side(args)
        const used = process.cpuUsage(cpu)
        ;(figures[name] ??= []).push((used.user + used.system) / calls / CASES.length)
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.log(`CPU per call, µs, median of ${figures.tool!.length} rounds of ${calls} x 4 operations (range):`)
    for (const [name, values] of Object.entries(figures)) console.log(`  ${name.padEnd(5)} ${median(values).toFixed(1).padStart(6)}  (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`)
    await kept.close()
    copy.remove()
  } else if (process.env.PROBE === 'profile') {
    const op = CASES.find((c) => c.operation === (process.env.OP ?? 'findReferences'))!
    const calls = Number(process.env.CALLS ?? 2000)
    // WARMUP=n: n calls first, so the profile shows the steady state rather than V8 compiling.
    for (let i = 0; i < Number(process.env.WARMUP ?? 0); i++) await call(op)
    const inspector = new Inspector()
    inspector.connect()
    await inspector.post('Profiler.enable')
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 })
    await inspector.post('Profiler.start')
    const cpu = process.cpuUsage()
    for (let i = 0; i < calls; i++) await call(op)
    const used = process.cpuUsage(cpu)
    const { profile } = await inspector.post('Profiler.stop')
    const file = join(tmpdir(), `dsh-probe-${op.operation}-${process.pid}.cpuprofile`)
    fs.writeFileSync(file, JSON.stringify(profile))
    console.log(`${calls} ${op.operation} calls; CPU per call ${((used.user + used.system) / calls).toFixed(1)} µs; profile ${file}`)
    inspector.disconnect()
  } else {
    // ctx.fs's methods, node:fs's synchronous calls, promises, lifetimes, abort controllers.
    for (const key of ['workspace', 'contained', 'resolve', 'stat', 'statBesideProven', 'readContainedText', 'streamContainedText', 'readText'] as const) wrap(FileSystem.prototype, key, `ctx.fs.${key}`)
    const native = fs.realpathSync.native
    for (const key of ['realpathSync', 'lstatSync', 'statSync', 'openSync', 'fstatSync', 'readSync', 'closeSync', 'readFileSync'] as const) wrap(fs, key, `fs.${key}`)
    fs.realpathSync.native = ((path: fs.PathLike) => (count('fs.realpathSync.native'), native(path))) as typeof native
    for (const key of ['realpath', 'stat', 'lstat', 'open', 'read', 'fstat', 'close'] as const) wrap(fs, key, `fs.${key} (thread pool)`)
    syncBuiltinESMExports()
    wrap(Lifetime.prototype as any, 'attach', 'Lifetime (made)')
    const OriginalController = globalThis.AbortController
    globalThis.AbortController = class extends OriginalController {
      constructor() {
        super()
        count('AbortController')
      }
    }
    let promises = 0
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) })
    const N = Number(process.env.N ?? 50)
    for (const args of CASES) {
      counts.clear()
      hook.enable()
      promises = 0
      for (let i = 0; i < N; i++) await call(args)
      hook.disable()
      const files = new Set((last.locations ?? []).map((location: any) => location.path.split(':')[0]))
      const shape = last.kind === 'locations' ? `${last.locations.length} locations in ${files.size} files (${[...files].join(', ')}); with line text: ${last.locations.filter((l: any) => l.lineText !== undefined).length}` : 'hover'
      console.log(`${args.operation}: ${shape}`)
      console.log(`  per call: promises ${(promises / N).toFixed(1)}; ${[...counts].sort().map(([name, n]) => `${name} ${(n / N).toFixed(2)}`).join('; ')}`)
    }
  }
} finally {
  await host.stop()
  workspace.remove()
}

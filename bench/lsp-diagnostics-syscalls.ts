import { statSync, writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ours, SERVERS, servicesOf, workspaceCopy, complete } from './lsp-diagnostics.ts'
import { bootCoding } from './lsp-servers.ts'

// The system calls of one change on TypeScript 7 (the write not included: fileChanged + lsp_diagnostics),
// counted rather than timed. Each change is fenced by a stat of a path that does not exist, so a trace
// of the main thread can be cut at the fences:
//
//   strace -f -o /tmp/trace env N=20 node packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-syscalls.ts
//   TRACE=/tmp/trace PID=<the pid it printed> node packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-syscalls.ts
//
// The second counts the main thread's calls between `/dsh-change-fence-start` and `-end`, per change.
const N = Number(process.env.N ?? 20)
if (process.env.TRACE) {
  countFenced(process.env.TRACE, process.env.PID ?? '')
  process.exit(0)
}
const server = SERVERS.find((candidate) => candidate.baseline === 'pull')!
const copy = workspaceCopy(server)
const clean = readFileSync(join(copy.dir, server.file), 'utf8')
const broken = server.breakText(clean)
const host = await bootCoding()
const fence = (name: string) => statSync(`/dsh-change-fence-${name}`, { throwIfNoEntry: false })
try {
  const session = host.app.sessions.create({ cwd: copy.dir })
  const services = servicesOf(host)
  for (let attempt = 1; !(await complete(host, session, server.file)); attempt++) {
    if (attempt === 10) throw new Error(`${server.name}: no complete diagnostics after ${attempt} calls`)
  }
  // PAUSE_MS: time to attach a profiler (`perf record -p <pid>`) after the warm-up.
  if (process.env.PAUSE_MS) {
    console.log(`main thread ${process.pid}: warm, pausing ${process.env.PAUSE_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.PAUSE_MS)))
  }
  for (let i = 0; i < 20 + N; i++) {
    const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
    writeFileSync(join(copy.dir, server.file), text)
    if (i >= 20) fence('start')
    await ours(services, session, server, errors)
    if (i >= 20) fence('end')
  }
  console.log(`main thread ${process.pid}: ${N} changes fenced`)
} finally {
  await host.stop()
  copy.remove()
}

/** Per change: the system calls of thread `pid` in an `strace -f` trace between the fences, by name, then by name and path. */
function countFenced(trace: string, pid: string): void {
  const byName = new Map<string, number>()
  const byPath = new Map<string, number>()
  let inside = false
  let changes = 0
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const match = /^(\d+)\s+(\w+)\(/.exec(line)
    if (!match || match[1] !== pid) continue
    if (line.includes('/dsh-change-fence-start')) {
      inside = true
      changes++
    } else if (line.includes('/dsh-change-fence-end')) inside = false
    else if (inside) {
      const name = match[2]!
      byName.set(name, (byName.get(name) ?? 0) + 1)
      const path = /"([^"]+)"/.exec(line)?.[1]
      if (path) byPath.set(`${name} ${path.slice(0, 100)}`, (byPath.get(`${name} ${path.slice(0, 100)}`) ?? 0) + 1)
    }
  }
  const rows = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1]).map(([key, count]) => `${(count / changes).toFixed(2).padStart(7)}  ${key}`)
  const total = [...byName.values()].reduce((sum, count) => sum + count, 0)
  console.log([`${changes} changes, ${(total / changes).toFixed(2)} system calls per change:`, ...rows(byName), 'by path:', ...rows(byPath).slice(0, 30)].join('\n'))
}

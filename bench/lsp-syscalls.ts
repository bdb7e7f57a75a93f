import { join } from 'node:path'
import { bootCoding, fixtureCopy, NATIVE, REPO } from './lsp-servers.ts'

// What an lsp call asks of the file system, counted rather than timed (a loaded machine cannot time
// a few microseconds): `N` warm calls of each of bench/lsp.ts's four operations against TypeScript
// 7's server, through the coding preset. Run it under strace twice and divide the difference:
//
//   strace -c -e trace=openat,close,read,fstat,newfstatat,statx,readlink,lstat,stat \
//     env N=10 node packages/cli/cli/bin/run-ts.mjs bench/lsp-syscalls.ts      # then N=60
//
// (without -f strace follows the main thread only: ctx.fs's calls on the event loop, not the
// server's nor libuv's thread pool). Per call = (calls at 60 − calls at 10) / (50 × 4).
const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const N = Number(process.env.N ?? 20)
const CASES = [
  { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 },
  { operation: 'findReferences', filePath: 'src/shapes.ts', line: 12, character: 17 },
  { operation: 'goToImplementation', filePath: 'src/shapes.ts', line: 1, character: 18 },
  { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 },
]

const workspace = fixtureCopy(FIXTURE, NATIVE, 'dsh-bench-syscalls-')
const host = await bootCoding()
try {
  const tools = host.app.tools
  const session = host.app.sessions.create({ cwd: workspace.dir })
  const call = async (args: (typeof CASES)[number]) => {
    const result = await tools.execute({ name: 'lsp', arguments: args, session })
    if (result.isError) throw new Error(`${args.operation}: ${result.error.code} ${result.error.message}`)
  }
  for (const args of CASES) await call(args)
  // A fresh copy's files are kept once they have stood still for SETTLE_MS, as in any long session.
  await new Promise((resolve) => setTimeout(resolve, 2500))
  for (const args of CASES) await call(args)
  for (const args of CASES) for (let i = 0; i < N; i++) await call(args)
  console.log(`${N} warm calls of each of ${CASES.length} operations done`)
} finally {
  await host.stop()
  workspace.remove()
}

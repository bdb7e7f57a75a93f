import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { scrubbedEnv } from 'dsh-core'

/**
 * Starts one converter process: `node --max-old-space-size=<maxMemoryMb>` on `entry`, with an IPC
 * channel ('advanced' serialization: a PDF's bytes go as they are), stdout ignored (nothing it prints
 * may reach a host's stdout, which `dsh serve` speaks on) and stderr piped to the pool (V8's
 * "heap out of memory" report says why it died). Its environment is scrubbed as every child's is
 * (a converter of hostile pages has no use for credentials).
 */
export function startConversionChild(entry: URL, maxMemoryMb: number): ChildProcess {
  // Loaded with the first converter: a process that converts no page (`dsh tools`) never needs it.
  const { fork } = process.getBuiltinModule('node:child_process')
  const execArgv = [`--max-old-space-size=${maxMemoryMb}`, ...resolutionFlags()]
  // Running from the TypeScript sources (tests, benches, a fresh clone's `pnpm start`): the child
  // loads them through tsx, as bin/dsh.mjs does.
  if (entry.pathname.endsWith('.ts')) execArgv.push('--import', import.meta.resolve('tsx/esm'))
  return fork(fileURLToPath(entry), [], { execArgv, env: scrubbedEnv(), serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
}

/**
 * The host's `--conditions` flags (`node --conditions=dsh-built`: the workspace's bundles), so the
 * child resolves the packages it imports as the host does; the host's other flags (an inspector, a
 * profiler, its own heap limit) are not the converter's. NODE_OPTIONS is inherited with the environment.
 */
function resolutionFlags(): string[] {
  const flags: string[] = []
  const argv = process.execArgv
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!
    if (flag.startsWith('--conditions=') || (flag.startsWith('-C') && flag.length > 2)) flags.push(flag)
    else if ((flag === '--conditions' || flag === '-C') && i + 1 < argv.length) flags.push(flag, argv[++i]!)
  }
  return flags
}

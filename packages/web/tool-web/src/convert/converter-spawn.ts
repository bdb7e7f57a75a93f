import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SpawnSpec } from 'dsh-core'

/** The argument that tells a converter its stdin is the host's pipe, to watch for the host's death (host-watch.ts). */
export const HOST_PIPE_ARG = '--host-pipe=stdin'

/** Enough of a dying converter's stderr to hold V8's fatal-error line and the reason for it. */
const STDERR_TAIL_BYTES = 4_096

/**
 * What `ctx.subprocess` starts as one converter: `node --max-old-space-size=<maxMemoryMb>` on
 * `entry`, with an IPC channel (`ipc`: a PDF's bytes go as they are), a stdin pipe whose end is
 * the host's death (the converter's watchdog, host-watch.ts), stdout ignored (nothing it
 * prints may reach a host's stdout, which `dsh serve` speaks on) and the end of its stderr kept
 * (V8's "heap out of memory" report says why it died). Its environment is scrubbed and it leads its
 * own process group, as every child does.
 */
export function converterSpawn(entry: URL, maxMemoryMb: number): SpawnSpec {
  const file = fileURLToPath(entry)
  const execArgv = [`--max-old-space-size=${maxMemoryMb}`, ...resolutionFlags()]
  // Running from the TypeScript sources (tests, benches, a fresh clone's `pnpm start`): the child
  // loads them through tsx, as bin/dsh.mjs does.
  if (entry.pathname.endsWith('.ts')) execArgv.push('--import', import.meta.resolve('tsx/esm'))
  // stdin: a pipe the host holds and never writes to; its end tells the converter's watchdog that the host is gone (host-watch.ts).
  return { argv: [process.execPath, ...execArgv, file, HOST_PIPE_ARG], cwd: dirname(file), stdin: 'pipe', stdout: 'ignore', ipc: true, stderrTailBytes: STDERR_TAIL_BYTES }
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

import { basename, isAbsolute } from 'node:path'

/** Package runners that run the working directory's own packages first (its node_modules/.bin, its pyproject.toml). */
const PACKAGE_RUNNERS: ReadonlySet<string> = new Set(['npx', 'pnpx', 'bunx', 'uvx'])
/** Package managers whose subcommand runs the project's own packages or environment: `pnpm dlx`, `uv run`, `poetry run`. */
const PROJECT_RUNNERS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(['exec', 'x']),
  pnpm: new Set(['exec', 'dlx']),
  yarn: new Set(['exec', 'dlx']),
  bun: new Set(['x', 'run']),
  uv: new Set(['run', 'tool']),
  poetry: new Set(['run']),
  pipenv: new Set(['run']),
}
const PYTHON = /^(python|pypy)(\d+(\.\d+)?)?$/
const NODE = /^(node|nodejs|deno|bun)$/
/** Node options whose value is the next argument (so it is not the script). */
const NODE_VALUED: ReadonlySet<string> = new Set(['-r', '--require', '--import', '-C', '--conditions', '--loader', '--experimental-loader', '--env-file'])

/**
 * Why a server row's command runs the code of the directory it starts in, or undefined. A server
 * runs in its project's directory, and a launcher resolves that directory's code first: `python3 -m
 * pylsp` imports a repository's own `pylsp.py` (`-m` and `-c` put the working directory first on
 * `sys.path`, unless `-I` or `-P`), `npx` runs its `node_modules/.bin`, and `node server.js` its
 * `server.js`. Such a row is trust-gated as one with `runsWorkspaceCode` is. A command that is the
 * server's own executable (every catalog server) is none of these.
 */
export function launcherRunsWorkspaceCode(command: string, args: readonly string[]): string | undefined {
  const name = basename(command)
  if (PACKAGE_RUNNERS.has(name)) return `${name} runs the workspace's own packages first`
  const sub = PROJECT_RUNNERS[name]
  if (sub && args[0] !== undefined && sub.has(args[0])) return `${name} ${args[0]} runs the workspace's own packages or environment`
  if (PYTHON.test(name)) {
    const safePath = args.includes('-I') || args.includes('-P')
    const flag = args.find((arg) => arg === '-m' || arg === '-c')
    if (flag && !safePath) return `${name} ${flag} imports the workspace's own modules first`
    const script = args.find((arg) => !arg.startsWith('-'))
    if (!flag && script !== undefined && !isAbsolute(script)) return `${name} runs ${script}, a path in the workspace`
    return undefined
  }
  if (NODE.test(name)) {
    for (let index = 0; index < args.length; index++) {
      const arg = args[index]!
      if (NODE_VALUED.has(arg)) {
        index++
        continue
      }
      if (arg.startsWith('-')) continue
      return isAbsolute(arg) ? undefined : `${name} runs ${arg}, a path in the workspace`
    }
  }
  return undefined
}

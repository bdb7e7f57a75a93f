/**
 * What a child node process loads: it runs an ES module script (`import('dsh-core')`…) from the
 * repository root with every module it imports logged (packages/cli/cli/tests/fixtures/module-log).
 * Under the suite's `--conditions=dsh-built` the workspace packages resolve to their bundles, as an
 * installed `dsh` loads them; without it they are the TypeScript sources, through tsx. Counts, never
 * times: for the issue 27 item 5 tests that a start leaves some code unloaded.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const MODULE_LOG = join(ROOT, 'packages/cli/cli/tests/fixtures/module-log/register.mjs')
const run = promisify(execFile)

/** The file URLs of the modules `script` (an ES module body) loaded, the log's own hooks left out. */
export async function modulesLoadedBy(script: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-module-log-'))
  try {
    const log = join(dir, 'modules.log')
    // The sources need tsx's hooks, as bin/dsh.mjs registers them; the bundles do not.
    const prelude = "if (import.meta.resolve('dsh-core').endsWith('.ts')) (await import('tsx/esm/api')).register()\n"
    await run(process.execPath, ['--input-type=module', '-e', prelude + script], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${pathToFileURL(MODULE_LOG).href}`].filter(Boolean).join(' '), DSH_MODULE_LOG: log },
    })
    const hooks = pathToFileURL(join(ROOT, 'packages/cli/cli/tests/fixtures/module-log/')).href
    return readFileSync(log, 'utf8').split('\n').filter((url) => url.startsWith('file:') && !url.startsWith(hooks))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether a loaded module is the yaml package's code: its own files, or a bundle chunk holding it. */
export function holdsYamlParser(url: string): boolean {
  if (/\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?yaml\//.test(url)) return true
  return readFileSync(fileURLToPath(url), 'utf8').includes('Symbol.for("yaml.document")')
}

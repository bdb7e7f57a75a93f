import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { holdsYamlParser } from '../../test-support/module-log.ts'
import { CheckFailure, run } from './commands.ts'

const MODULE_LOG = fileURLToPath(new URL('../../packages/cli/cli/tests/fixtures/module-log/', import.meta.url))

/**
 * A module count rather than a time (the machine is shared): the tsc layout made `dsh tools --json
 * --preset base` load about 350 modules, and Node's module loader was the largest part of its
 * start-up (issue 27 item 5). Bundled, it loads a few dozen.
 */
export const MAX_STARTUP_MODULES = 80

/**
 * Runs the installed `npx dsh tools --json --preset base` with every loaded module logged, and fails
 * when a dsh package's JavaScript comes from outside its bundle/, when zod or yaml load from their
 * own packages (dsh-core's bundle carries them), when the yaml parser loads at all, or when more than
 * MAX_STARTUP_MODULES load.
 */
export async function checkStartupModules(app: string): Promise<string> {
  const hooks = mkdtempSync(join(app, 'module-log-'))
  try {
    for (const file of ['register.mjs', 'hooks.mjs']) copyFileSync(join(MODULE_LOG, file), join(hooks, file))
    const log = join(hooks, 'modules.log')
    await run('npx', ['--no', 'dsh', 'tools', '--json', '--preset', 'base'], {
      cwd: app,
      quiet: true,
      env: { NODE_OPTIONS: `--import=${join(hooks, 'register.mjs')}`, DSH_MODULE_LOG: log },
    })
    const files = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:') && !url.startsWith(`file://${hooks}`))
    const problems: string[] = []
    const outsideBundles = files.filter((url) => /\/node_modules\/dsh-[^/]+\/(?!bundle\/)/.test(url))
    if (outsideBundles.length) problems.push(`dsh packages loaded outside their bundle/: ${outsideBundles.join(', ')}`)
    const vendored = files.filter((url) => /\/node_modules\/(zod|yaml)\//.test(url))
    if (vendored.length) problems.push(`zod or yaml loaded from their own packages, beside dsh-core's copy: ${vendored.slice(0, 5).join(', ')}…`)
    // The shipped preset is read through its twin and no skill file is parsed: the yaml parser
    // (≈ 270 KB) is not compiled.
    const parser = files.filter(holdsYamlParser)
    if (parser.length) problems.push(`the yaml parser was loaded: ${parser.join(', ')}`)
    if (files.length > MAX_STARTUP_MODULES) problems.push(`${files.length} modules loaded, more than ${MAX_STARTUP_MODULES}`)
    if (problems.length) throw new CheckFailure(`npx dsh tools --json --preset base:\n  ${problems.join('\n  ')}`)
    return `npx dsh tools --json --preset base loaded ${files.length} modules (at most ${MAX_STARTUP_MODULES}), the dsh packages' from their bundles`
  } finally {
    rmSync(hooks, { recursive: true, force: true })
  }
}

/**
 * The named presets dsh-cli ships each come with their twin (`base.yml.json`, made at pack time from
 * exactly the shipped text), so an installed `dsh` does not parse their YAML on every start.
 */
export function checkPresetTwins(app: string): string {
  const presets = join(app, 'node_modules', 'dsh-cli', 'presets')
  const problems: string[] = []
  for (const name of ['base.yml', 'coding.yml']) {
    const twin = join(presets, `${name}.json`)
    if (!existsSync(twin)) {
      problems.push(`${name} has no twin ${name}.json`)
      continue
    }
    const { yaml } = JSON.parse(readFileSync(twin, 'utf8')) as { yaml?: unknown }
    if (yaml !== readFileSync(join(presets, name), 'utf8')) problems.push(`${name}.json was not made from the shipped ${name}`)
  }
  if (problems.length) throw new CheckFailure(`dsh-cli's presets:\n  ${problems.join('\n  ')}`)
  return "dsh-cli's named presets ship with their parsed twins"
}

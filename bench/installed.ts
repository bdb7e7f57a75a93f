import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../scripts/pack-check/commands.ts'
import { publishedPackages, workspacePackages } from '../scripts/pack-check/workspace.ts'

/**
 * A directory where npm installed this workspace's packages from their tarballs, as a user's project
 * has them: every package packed with pnpm (its prepack builds it), then installed with npm. The
 * install is kept under node_modules/.cache keyed by the tarballs' contents, so a later run with the
 * same code only packs again. Needs the npm registry (or npm's cache) the first time per change.
 */
export async function installedWorkspace(root: string): Promise<string> {
  const packages = publishedPackages(root, await workspacePackages(root))
  const tarballs = mkdtempSync(join(tmpdir(), 'dsh-bench-tarballs-'))
  try {
    for (const pkg of packages) await run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: pkg.path, quiet: true })
    const files = readdirSync(tarballs).sort()
    const hash = createHash('sha256')
    for (const file of files) hash.update(file).update(readFileSync(join(tarballs, file)))
    const cache = join(root, 'node_modules', '.cache', 'dsh-bench-installed')
    const install = join(cache, hash.digest('hex').slice(0, 16))
    if (existsSync(join(install, 'node_modules', 'dsh-cli', 'package.json'))) return install
    rmSync(cache, { recursive: true, force: true }) // an install of older code is of no further use
    const staging = `${install}.partial`
    mkdirSync(staging, { recursive: true })
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'dsh-bench-installed', private: true }, null, 2)}\n`)
    const copies = files.map((file) => {
      renameSync(join(tarballs, file), join(staging, file))
      return `./${file}`
    })
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...copies], { cwd: staging })
    renameSync(staging, install)
    return install
  } finally {
    rmSync(tarballs, { recursive: true, force: true })
  }
}

/** The `dsh` bin of an install's dsh-cli, as its published package.json names it. */
export function installedDshBin(install: string): string {
  const manifest = join(install, 'node_modules', 'dsh-cli', 'package.json')
  if (!existsSync(manifest)) throw new Error(`${install} has no node_modules/dsh-cli`)
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> }
  const relative = typeof bin === 'string' ? bin : bin?.dsh
  if (!relative) throw new Error(`${manifest} names no dsh bin`)
  return join(install, 'node_modules', 'dsh-cli', relative)
}

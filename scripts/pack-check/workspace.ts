import { existsSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { CheckFailure, run } from './commands.ts'

export interface WorkspacePackage {
  readonly name: string
  readonly path: string
  readonly manifest: Manifest
}

export interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly license?: string
  readonly repository?: { readonly directory?: string }
  readonly engines?: { readonly node?: string }
  readonly files?: readonly string[]
  readonly scripts?: Readonly<Record<string, string>>
  readonly exports?: Readonly<Record<string, unknown>>
  readonly publishConfig?: { readonly exports?: Readonly<Record<string, unknown>> }
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
}

/** The prepack every published package runs first (scripts/prepack.mjs; packages sit three levels down). */
export const PREPACK = 'node ../../../scripts/prepack.mjs'

/** The workspace's packages (not the private root), as pnpm sees them. */
export async function workspacePackages(root: string): Promise<WorkspacePackage[]> {
  const listed = JSON.parse((await run('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: root, quiet: true })).stdout) as { name: string; path: string; private?: boolean }[]
  return listed
    .filter((entry) => entry.path !== root.replace(/\/$/, ''))
    .map((entry) => ({ name: entry.name, path: entry.path, manifest: JSON.parse(readFileSync(join(entry.path, 'package.json'), 'utf8')) as Manifest }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * The packages to publish: every workspace package except a private one outside packages/ (an
 * example). Each is checked against what makes a package publishable here, so one added later
 * gets the same rules.
 */
export function publishedPackages(root: string, list: readonly WorkspacePackage[]): WorkspacePackage[] {
  const built = (JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { references: { path: string }[] }).references.map((ref) => join(root, ref.path))
  const problems: string[] = []
  for (const { name, path, manifest } of list) {
    const dir = relative(root, path).split(sep).join('/')
    const problem = (text: string) => problems.push(`${name} (${dir}): ${text}`)
    if (manifest.private) {
      if (dir.startsWith('packages/')) problem('is private, but every package under packages/ is published')
      continue
    }
    if (!manifest.license) problem('has no license')
    if (manifest.repository?.directory !== dir) problem(`repository.directory should be "${dir}"`)
    if (!manifest.engines?.node) problem('has no engines.node')
    if (!manifest.files?.includes('dist')) problem('files does not list dist')
    if (!manifest.scripts?.prepack?.startsWith(PREPACK)) problem(`its prepack does not start with "${PREPACK}" (build before packing, refuse npm)`)
    if (!existsSync(join(path, 'tsconfig.build.json'))) problem('has no tsconfig.build.json')
    else if (!built.includes(join(path, 'tsconfig.build.json'))) problem('its tsconfig.build.json is not referenced from the root tsconfig.build.json')
    const source = Object.keys(manifest.exports ?? {})
    const published = Object.keys(manifest.publishConfig?.exports ?? {})
    if (source.join() !== published.join()) problem(`exports (${source.join(', ')}) and publishConfig.exports (${published.join(', ')}) list different entries`)
    if (!manifest.peerDependencies?.cordis) problem('cordis is not a peer dependency (a harness must have one cordis)')
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (dependency === 'cordis' || list.some((other) => other.name === dependency)) problem(`${dependency} is a dependency; make it a peer (and a devDependency) so a harness has one copy`)
    }
  }
  if (problems.length) throw new CheckFailure(`packages not ready to publish:\n  ${problems.join('\n  ')}`)
  return list.filter((pkg) => !pkg.manifest.private)
}

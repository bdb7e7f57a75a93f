import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { Plugin } from 'cordis'
import { z } from 'zod'
import { errorMessage } from '../errors.ts'
import { describeIssues } from '../tools/schema.ts'
import { PresetError } from './errors.ts'
import type { PresetRow } from './rows.ts'
import { importPluginFile } from './typescript.ts'
import { ownCorePlugin } from './core-plugins.ts'

export interface LoadedRow {
  readonly row: PresetRow
  readonly plugin: Plugin
  /** `"lsp-stdio" (dsh-lsp-stdio) in presets/coding.yml`, for messages. */
  readonly label: string
  /** The plugin's module file, resolved. */
  readonly path: string
}

// Resolving from dsh-core's own location reaches the installation's node_modules chain, where
// the root package lists every plugin package of the workspace.
const installationRequire = createRequire(import.meta.url)

export function rowLabel(row: PresetRow): string {
  return row.id === row.name ? `row "${row.id}" in ${row.file}` : `row "${row.id}" (${row.name}) in ${row.file}`
}

/** Where a row's plugin lives, or why it cannot be found (and, for a package, the package to install). */
type Located = { readonly path: string } | { readonly problem: string; readonly installs?: string }

/**
 * A path relative to its file, else a package seen from the file, else from the installation.
 * `requireFrom` makes one resolver per directory for the whole preset: a `createRequire` is a
 * CommonJS module object set up afresh, and a preset's rows mostly come from one file (start-up).
 */
function locatePlugin(row: PresetRow, requireFrom: (dir: string) => NodeJS.Require): Located {
  const { name } = row
  if (name.startsWith('./') || name.startsWith('../') || isAbsolute(name)) {
    const path = resolve(dirname(row.nameFile), name)
    const info = statSync(path, { throwIfNoEntry: false })
    if (!info) return { problem: `plugin file ${path} does not exist` }
    // Node's loader would read a FIFO or a device (/dev/zero) without end: the boot would never finish.
    if (!info.isFile() && !info.isDirectory()) throw new PresetError(`${rowLabel(row)}: plugin file ${path} is not a regular file`, 'PRESET_PLUGIN_INVALID')
    return { path }
  }
  for (const resolver of [requireFrom(dirname(row.nameFile)), installationRequire]) {
    try {
      return { path: resolver.resolve(name) }
    } catch {
      // try the next place
    }
  }
  return { problem: `no plugin package "${name}" is installed`, installs: packageOf(name) }
}

/** The package a module name lives in: `dsh-skill` for `dsh-skill/tool`, `@scope/pkg` for `@scope/pkg/sub`. */
function packageOf(name: string): string {
  return name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')
}

/**
 * The plugin module of every row, in row order. Rows whose plugin cannot be found fail together in
 * one `PRESET_PLUGIN_NOT_FOUND` naming each, with one `npm install` for all the missing packages,
 * so a fresh installation learns everything it lacks from one run.
 */
export function locatePlugins(rows: readonly PresetRow[]): string[] {
  const resolvers = new Map<string, NodeJS.Require>()
  const requireFrom = (dir: string) => {
    let resolver = resolvers.get(dir)
    if (!resolver) resolvers.set(dir, (resolver = createRequire(join(dir, 'preset.yml'))))
    return resolver
  }
  const located = rows.map((row) => ({ row, found: locatePlugin(row, requireFrom) }))
  const missing = located.flatMap(({ row, found }) => ('path' in found ? [] : [{ row, ...found }]))
  if (missing.length) {
    const installs = [...new Set(missing.flatMap((entry) => (entry.installs ? [entry.installs] : [])))]
    const what = missing.map((entry) => `${rowLabel(entry.row)}: ${entry.problem}`).join('; ')
    const how = installs.length ? ` (npm install ${installs.join(' ')} beside the packages ${installs.length > 1 ? 'they plug' : 'it plugs'} into)` : ''
    const count = missing.length > 1 ? `${missing.length} plugins not found: ` : ''
    throw new PresetError(`${count}${what}${how}`, 'PRESET_PLUGIN_NOT_FOUND')
  }
  return located.map(({ found }) => (found as { path: string }).path)
}

/**
 * A `.ts` file outside an ES module package is compiled as CommonJS, where its `import`s of ES
 * modules fail with a confusing cycle error; say how to make it an ES module.
 */
function moduleHint(path: string): string {
  if (!/\.tsx?$/.test(path) || nearestPackageType(dirname(path)) === 'module') return ''
  return ` (a .ts plugin loads as CommonJS unless a package.json above it says "type": "module"; add one beside it, or rename the file to .mts)`
}

function nearestPackageType(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    const manifest = join(current, 'package.json')
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type
      } catch {
        return undefined
      }
    }
    if (dirname(current) === current) return undefined
  }
}

/** A module's plugin: its default export when that is one, else the module itself (a namespace plugin). */
function unwrap(module: Record<string, unknown>): Plugin | undefined {
  const isPlugin = (value: unknown): value is Plugin =>
    typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { apply?: unknown }).apply === 'function')
  if (isPlugin(module.default)) return module.default
  if (typeof module.apply === 'function') return module as unknown as Plugin
  return undefined
}

/** Imports a row's plugin (its module file from `locatePlugins`) and checks its config now, so a bad row fails the boot naming the row and the field. */
export async function loadRow(row: PresetRow, path: string): Promise<LoadedRow> {
  const label = rowLabel(row)
  const plugin = ownCorePlugin(row.name, path) ?? unwrap(await importRow(row, path, label))
  if (!plugin) throw new PresetError(`${label}: ${row.name} exports no plugin (a default export, or an apply function)`, 'PRESET_PLUGIN_INVALID')
  const validate = (plugin as { Config?: unknown }).Config
  if (typeof validate === 'function') {
    try {
      validate(row.config)
    } catch (error) {
      throw new PresetError(`${label}: invalid config: ${configProblem(error)}`, 'PRESET_CONFIG_INVALID', { cause: error })
    }
  }
  return { row, plugin, label, path }
}

async function importRow(row: PresetRow, path: string, label: string): Promise<Record<string, unknown>> {
  try {
    return await importPluginFile(path, installationRequire)
  } catch (error) {
    throw new PresetError(`${label}: plugin ${row.name} failed to load: ${errorMessage(error)}${moduleHint(path)}`, 'PRESET_PLUGIN_INVALID', { cause: error })
  }
}

function configProblem(error: unknown): string {
  if (error instanceof z.ZodError) {
    return error.issues.length ? describeIssues(new z.ZodError(error.issues.map((issue) => ({ ...issue, path: ['config', ...issue.path] }))), 'config') : error.message
  }
  return errorMessage(error)
}

import type { Plugin } from 'cordis'
import credentials from '../credentials/plugin.ts'
import fs from '../fs/plugin.ts'
import readiness from '../readiness/plugin.ts'
import sessions from '../sessions/plugin.ts'
import subprocess from '../subprocess/plugin.ts'
import tools from '../tools/plugin.ts'
import trust from '../trust/plugin.ts'

/** dsh-core's own plugin entries (package.json `exports`) and the plugin each one's module exports. */
const CORE_PLUGINS: ReadonlyMap<string, Plugin> = new Map<string, Plugin>([
  ['dsh-core/tools', tools],
  ['dsh-core/fs', fs],
  ['dsh-core/subprocess', subprocess],
  ['dsh-core/sessions', sessions],
  ['dsh-core/credentials', credentials],
  ['dsh-core/readiness', readiness],
  ['dsh-core/trust', trust],
])

/**
 * The plugin of a row naming one of dsh-core's plugin entries (`dsh-core/tools`, ...), when `path`
 * (where the row's name resolved) is this dsh-core's own entry: the running dsh-core holds it
 * already, so the entry's one-line module is not imported (seven modules fewer to resolve, read and
 * compile on every start of the base preset, issue 27 item 5). Another copy of dsh-core (a preset's
 * own node_modules) resolves elsewhere and is imported as any other plugin.
 */
export function ownCorePlugin(name: string, path: string, installation: NodeJS.Require): Plugin | undefined {
  const plugin = CORE_PLUGINS.get(name)
  if (!plugin) return undefined
  try {
    return installation.resolve(name) === path ? plugin : undefined
  } catch {
    return undefined
  }
}

/** The entry names, for the test that keeps this table and package.json's exports alike. */
export const CORE_PLUGIN_NAMES: readonly string[] = [...CORE_PLUGINS.keys()]

import { isAbsolute, relative, sep } from 'node:path'
import type { Plugin } from 'cordis'
import credentials from '../credentials/plugin.ts'
import fs from '../fs/plugin.ts'
import readiness from '../readiness/plugin.ts'
import sessions from '../sessions/plugin.ts'
import subprocess from '../subprocess/plugin.ts'
import tools from '../tools/plugin.ts'
import trust from '../trust/plugin.ts'
import { HOST_PACKAGE } from './host-package.ts'

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
 * (where the row's name resolved) lies in this dsh-core's own package directory: the running
 * dsh-core holds that entry's plugin already, so the entry's one-line module is not imported (seven
 * modules fewer to resolve, read and compile on every start of the base preset, issue 27 item 5).
 * The directory says it without resolving the name a second time (seven resolutions fewer). Another
 * copy of dsh-core (a preset's own node_modules) lies elsewhere and is imported as any other plugin.
 */
export function ownCorePlugin(name: string, path: string): Plugin | undefined {
  const plugin = CORE_PLUGINS.get(name)
  return plugin && HOST_PACKAGE && isInside(HOST_PACKAGE, path) ? plugin : undefined
}

/** `path` is in the package at `root`, not in a package nested under it. */
function isInside(root: string, path: string): boolean {
  const inside = relative(root, path)
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && !inside.split(sep).includes('node_modules')
}

/** The entry names, for the test that keeps this table and package.json's exports alike. */
export const CORE_PLUGIN_NAMES: readonly string[] = [...CORE_PLUGINS.keys()]

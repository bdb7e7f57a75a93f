import { dirname, isAbsolute, resolve } from 'node:path'
import type { Context, ForkScope, Plugin } from 'cordis'
import type { PresetRow } from './rows.ts'

/** Where a preset row was written: for plugins that take paths in their config. */
export interface RowOrigin {
  readonly id: string
  /** The preset or overlay file that last changed the row. */
  readonly file: string
  /** The file that set the top-level config key `key` (an overlay that patched it, else the row's file). */
  fileOf(key: string): string
  /** `path` resolved against the directory of the file that set `key`; absolute paths stay. */
  resolve(key: string, path: string): string
}

const origins = new WeakMap<object, RowOrigin>()

/**
 * Runs `create` (which adds `plugin` for `row`) and remembers the row's origin on the fork it makes,
 * and on its runtime for a plugin applied once. The fork is caught as cordis announces it, before
 * `apply` runs: a plugin whose services are all there applies inside `create`.
 */
export function withOrigin<T>(app: Context, plugin: Plugin, row: PresetRow, create: () => T): T {
  const origin: RowOrigin = {
    id: row.id,
    file: row.file,
    fileOf: (key) => row.configFiles[key] ?? row.file,
    resolve: (key, path) => (isAbsolute(path) ? path : resolve(dirname(origin.fileOf(key)), path)),
  }
  const stop = app.on('internal/fork', (fork: ForkScope) => {
    if (fork.runtime.plugin !== plugin || origins.has(fork)) return
    origins.set(fork, origin)
    if (!fork.runtime.isReusable) origins.set(fork.runtime, origin)
  })
  try {
    return create()
  } finally {
    stop()
  }
}

/**
 * The preset row a plugin was applied from, seen from inside its `apply`; undefined when the
 * plugin was added by code rather than by `bootPreset`.
 */
export function rowOrigin(ctx: Context): RowOrigin | undefined {
  return origins.get(ctx.scope)
}

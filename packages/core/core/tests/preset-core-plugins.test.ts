import { readFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CORE_PLUGIN_NAMES, ownCorePlugin } from '../src/preset/core-plugins.ts'
import { loadRow } from '../src/preset/load.ts'
import type { PresetRow } from '../src/preset/rows.ts'

// Issue 27 item 5: a row naming one of dsh-core's plugin entries takes the plugin from the loaded
// dsh-core instead of importing the entry's one-line module (the base preset's seven rows: seven
// modules fewer per start; the count is in cli's lazy-load.test). The table must stay what the
// entries export, and only this dsh-core's own entries may be taken from it. Which entry is its own
// is told by where the name resolved (inside this dsh-core's directory), not by resolving it again.

const require = createRequire(import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> }

describe("dsh-core's own plugin entries", () => {
  it("are every plugin entry of package.json's exports, each the plugin its module exports", async () => {
    const entries = Object.keys(manifest.exports).filter((key) => key !== '.' && key !== './package.json' && !key.startsWith('./vendor/'))
    expect([...CORE_PLUGIN_NAMES].sort()).toEqual(entries.map((key) => `dsh-core/${key.slice(2)}`).sort())
    for (const name of CORE_PLUGIN_NAMES) {
      const path = require.resolve(name)
      const exported = ((await import(path)) as { default: unknown }).default
      expect(ownCorePlugin(name, path), name).toBe(exported)
    }
  })

  it('are imported as any plugin when the name resolved to another copy of dsh-core, or names no entry', () => {
    const own = require.resolve('dsh-core/tools')
    const root = fileURLToPath(new URL('..', import.meta.url))
    expect(ownCorePlugin('dsh-core/tools', '/elsewhere/node_modules/dsh-core/bundle/tools/plugin.js')).toBeUndefined()
    expect(ownCorePlugin('dsh-core/tools', join(root, 'node_modules', 'dsh-core', 'bundle', 'tools', 'plugin.js'))).toBeUndefined()
    expect(ownCorePlugin('dsh-core/nothing', own)).toBeUndefined()
    expect(ownCorePlugin('dsh-web', own)).toBeUndefined()
  })

  it('are taken for their rows without resolving any module name (the old check resolved each name again: 7)', async () => {
    const rows = CORE_PLUGIN_NAMES.map((name): PresetRow => ({ id: name, name, config: undefined, disabled: false, file: 'preset.yml', nameFile: 'preset.yml', configFiles: {} }))
    const paths = rows.map((row) => require.resolve(row.name))
    const modules = Module as unknown as { _resolveFilename: (...args: unknown[]) => string }
    const resolveFilename = modules._resolveFilename
    let resolutions = 0
    modules._resolveFilename = function (this: unknown, ...args: unknown[]) {
      resolutions++
      return resolveFilename.apply(this, args)
    }
    try {
      const loaded = await Promise.all(rows.map((row, index) => loadRow(row, paths[index]!)))
      expect(loaded.map((entry) => entry.plugin)).toEqual(await Promise.all(paths.map(async (path) => ((await import(path)) as { default: unknown }).default)))
    } finally {
      modules._resolveFilename = resolveFilename
    }
    expect(resolutions).toBe(0)
  })
})

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { CORE_PLUGIN_NAMES, ownCorePlugin } from '../src/preset/core-plugins.ts'

// Issue 27 item 5: a row naming one of dsh-core's plugin entries takes the plugin from the loaded
// dsh-core instead of importing the entry's one-line module (the base preset's seven rows: seven
// modules fewer per start; the count is in cli's lazy-load.test). The table must stay what the
// entries export, and only this dsh-core's own entries may be taken from it.

const require = createRequire(import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> }

describe("dsh-core's own plugin entries", () => {
  it("are every plugin entry of package.json's exports, each the plugin its module exports", async () => {
    const entries = Object.keys(manifest.exports).filter((key) => key !== '.' && key !== './package.json' && !key.startsWith('./vendor/'))
    expect([...CORE_PLUGIN_NAMES].sort()).toEqual(entries.map((key) => `dsh-core/${key.slice(2)}`).sort())
    for (const name of CORE_PLUGIN_NAMES) {
      const path = require.resolve(name)
      const exported = ((await import(path)) as { default: unknown }).default
      expect(ownCorePlugin(name, path, require), name).toBe(exported)
    }
  })

  it('are imported as any plugin when the name resolved to another copy of dsh-core, or names no entry', () => {
    expect(ownCorePlugin('dsh-core/tools', '/elsewhere/node_modules/dsh-core/bundle/tools/plugin.js', require)).toBeUndefined()
    expect(ownCorePlugin('dsh-core/nothing', require.resolve('dsh-core/tools'), require)).toBeUndefined()
    expect(ownCorePlugin('dsh-web', require.resolve('dsh-core/tools'), require)).toBeUndefined()
  })
})

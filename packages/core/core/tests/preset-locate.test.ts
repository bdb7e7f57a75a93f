import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import type { PresetRow } from '../src/preset/rows.ts'

// Issue 27 item 5: locating a preset's plugins made a `createRequire` (a CommonJS module object set
// up afresh) for every row, though the base preset's fifteen rows all come from one file.

const made = vi.hoisted(() => ({ count: 0 }))
vi.mock('node:module', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:module')>()
  return {
    ...original,
    createRequire: (from: string | URL) => {
      made.count++
      return original.createRequire(from)
    },
  }
})

// The project runs its files in shared workers (isolate: false): an earlier file may have loaded
// load.ts with the real node:module already. A fresh copy imports the counting one.
vi.resetModules()
const { locatePlugins } = await import('../src/preset/load.ts')

const PRESET = fileURLToPath(new URL('../../../../presets/base.yml', import.meta.url))

function row(name: string, nameFile = PRESET): PresetRow {
  return { id: name, name, config: {}, disabled: false, file: nameFile, nameFile, configFiles: {} }
}

describe('locatePlugins', () => {
  it('makes one resolver per preset directory, not one per row', () => {
    const names = ['dsh-core/tools', 'dsh-core/fs', 'dsh-core/sessions', 'dsh-web', 'dsh-tool-web', 'dsh-skill', 'dsh-skill/tool']
    made.count = 0
    const paths = locatePlugins(names.map((name) => row(name)))
    expect(made.count).toBe(1)
    // Each resolves as a resolver made for its own row would.
    const own = createRequire(join(PRESET, '..', 'preset.yml'))
    expect(paths).toEqual(names.map((name) => own.resolve(name)))
    // A row from another directory gets its own.
    made.count = 0
    locatePlugins([row('dsh-core/tools'), row('dsh-core/fs', fileURLToPath(new URL('../package.json', import.meta.url)))])
    expect(made.count).toBe(2)
  })
})

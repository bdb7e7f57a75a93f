import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { Context } from 'cordis'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 5: zod schemas cost start-up time to build (about 30 µs each cold, 659 per
// `dsh tools --json --preset base` before this). dsh-core built three at import or at the tools
// service's start that a start without an overlay, a trust question or a deferred tool never uses:
// an overlay's row, the trust file's shape, and tool_search's input (which the runtime also rendered
// to JSON Schema). Each is built where it is first needed now; its errors come at the same moment.

afterAll(removeTempDirs)

const CORE_ROWS = ['tools', 'fs', 'subprocess', 'sessions', 'credentials', 'readiness', 'trust']

/** How many zod schemas (and checks) `run` builds: each instance gets its `_zod` internals by Object.defineProperty. */
async function schemasBuiltBy<T>(run: () => Promise<T>): Promise<{ value: T; built: number }> {
  const define = Object.defineProperty
  let built = 0
  Object.defineProperty = function (target: object, key: PropertyKey, descriptor: PropertyDescriptor) {
    if (key === '_zod') built++
    return define(target, key, descriptor)
  } as typeof Object.defineProperty
  try {
    const value = await run()
    return { value, built }
  } finally {
    Object.defineProperty = define
  }
}

async function freshCore() {
  vi.resetModules()
  return {
    core: await import('../src/index.ts'),
    rows: await import('../src/preset/rows.ts'),
    store: await import('../src/trust/store.ts'),
    toolSearch: await import('../src/tools/tool-search.ts'),
  }
}

async function corePreset(): Promise<string> {
  const dir = await tempDir()
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, CORE_ROWS.map((id) => `- id: ${id}\n  name: dsh-core/${id}\n`).join(''))
  return preset
}

describe("dsh-core's start builds no schema it does not use", () => {
  it('importing dsh-core and booting its seven rows builds no overlay-row, trust-file or tool_search schema, and renders no tool_search', async () => {
    const preset = await corePreset()
    const dshHome = await tempDir()
    const { value: modules, built: atImport } = await schemasBuiltBy(freshCore)
    const { value: host, built: atBoot } = await schemasBuiltBy(async () => {
      const host = await modules.core.bootPreset({ preset, lifetime: 'one-shot', env: { ...process.env, DSH_HOME: dshHome } })
      expect((host.app as Context).tools.catalog()).toEqual([])
      return host
    })
    try {
      // Counted with this worker's zod: 164 before (all at import; the boot also rendered tool_search's
      // input to JSON Schema), 131 since, 143 with the trust service's lockWaitMs and lockStaleMs
      // (c42d0bd, six each), 149 with its watchIntervalMs (onChange's poll). A new config field in
      // dsh-core adds a few: raise the bound with the field, never back to 164.
      expect(atImport + atBoot).toBeLessThanOrEqual(153)
      expect([modules.rows.overlayRowShape?.built, modules.store.storeFileSchema?.built, modules.toolSearch.toolSearchInput?.built]).toEqual([false, false, false])
    } finally {
      await host.stop()
      vi.resetModules()
    }
  })

  it("an overlay's bad row still fails composing, naming the field and the reason", async () => {
    const { core, rows } = await freshCore()
    try {
      const preset = await corePreset()
      const overlay = join(await tempDir(), 'overlay.yml')
      await writeFile(overlay, '- id: tools\n  disabled: maybe\n')
      const error = await core.composePreset({ preset, overlays: [overlay] }).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(core.PresetError)
      expect((error as InstanceType<typeof core.PresetError>).code).toBe('PRESET_INVALID')
      expect((error as Error).message).toMatch(/overlay\.yml: row 1: .*disabled.*expected boolean/)
      expect(rows.overlayRowShape.built).toBe(true)
      await writeFile(overlay, '- id: tools\n  disabled: true\n')
      expect((await core.composePreset({ preset, overlays: [overlay] })).map((row) => row.id)).toEqual(CORE_ROWS.filter((id) => id !== 'tools'))
    } finally {
      vi.resetModules()
    }
  })

  it('a malformed trust file still decides nothing and refuses an update, naming the field and the reason', async () => {
    const { core, store } = await freshCore()
    try {
      const home = await tempDir()
      const work = await tempDir()
      await mkdir(home, { recursive: true })
      const file = join(home, 'trusted.json')
      await writeFile(file, JSON.stringify({ version: 1, directories: { [work]: { trusted: 'yes', decidedAt: 'now' } } }))
      const trust = new core.TrustStore(file)
      expect(store.storeFileSchema.built).toBe(false)
      const error = await trust.record(work, true).catch((caught: unknown) => caught)
      expect((error as { code?: string }).code).toBe('TRUST_STORE_INVALID')
      expect((error as Error).message).toContain(`not a trust file: directories.${work}.trusted: Invalid input: expected boolean, received string`)
      expect(store.storeFileSchema.built).toBe(true)
    } finally {
      vi.resetModules()
    }
  })

  it('tool_search is compiled when first listed: the same input schema, and a bad argument still fails naming the field', async () => {
    const { core, toolSearch } = await freshCore()
    const { Context } = await import('cordis')
    const app = new Context()
    app.plugin(core.ToolRuntime, { defer: { aboveTools: 0 } })
    await app.start()
    try {
      app.tools.register({ name: 'later', description: 'a deferred tool', parameters: { type: 'object', properties: {} }, defer: 'auto', execute: async () => 'ran' })
      expect(toolSearch.toolSearchInput.built).toBe(false)
      const listed = app.tools.catalog()
      expect(listed.map((tool) => tool.name)).toEqual([core.TOOL_SEARCH])
      expect(toolSearch.toolSearchInput.built).toBe(true)
      expect(listed[0]!.parameters).toMatchObject({ type: 'object', properties: { query: { type: 'string', minLength: 1, maxLength: 1000 }, limit: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['query'], additionalProperties: false })
      const bad = await app.tools.execute({ name: core.TOOL_SEARCH, arguments: { query: 'later', limit: 21 } })
      expect(bad.isError && bad.error.code).toBe('INVALID_ARGS')
      expect(bad.isError && bad.error.message).toMatch(/limit.*20/)
    } finally {
      await app.stop()
      vi.resetModules()
    }
  })
})

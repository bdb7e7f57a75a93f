// A plugin that fails to start is one `dsh:` line whose codes each appear once: the plugin's own
// code inside the message, then PRESET_PLUGIN_FAILED. A plugin failing with PRESET_PLUGIN_FAILED
// itself (one that boots a composition of its own) printed `… [PRESET_PLUGIN_FAILED] [PRESET_PLUGIN_FAILED]`,
// and one whose message already ended with its code printed that code twice.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dsh, killRunning, oneStderrLine, removeTempDirs, ROOT, tempDir } from './helpers.ts'

afterAll(async () => {
  killRunning()
  await removeTempDirs()
})

const FIXTURES = join(ROOT, 'packages', 'cli', 'cli', 'tests', 'fixtures', 'coded-failure')
const row = (id: string, file: string, config: Record<string, string>) => `- id: ${id}\n  name: ${JSON.stringify(join(FIXTURES, file))}\n  config: ${JSON.stringify(config)}\n`

/** Each `[CODE]` tag of `line`, in order. */
const tags = (line: string) => [...line.matchAll(/\[([A-Z][A-Z0-9_]*)\]/g)].map((match) => match[1])

describe.concurrent('a plugin that fails to start', () => {
  it('with a message that already ends with its code: that code once, then PRESET_PLUGIN_FAILED', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'preset.yml'), row('bad', 'fails.mjs', { message: 'boom [X_CODE]', code: 'X_CODE' }))
    const run = await dsh(['tools', '--preset', join(dir, 'preset.yml')])
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toBe(`dsh: row "bad" (${join(FIXTURES, 'fails.mjs')}) in ${join(dir, 'preset.yml')}: plugin failed to start: boom [X_CODE] [PRESET_PLUGIN_FAILED]`)
  })

  it('that boots a composition of its own which fails: each code once (X_CODE, then PRESET_PLUGIN_FAILED)', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'inner.yml'), row('bad', 'fails.mjs', { message: 'boom', code: 'X_CODE' }))
    await writeFile(join(dir, 'preset.yml'), row('outer', 'nested.mjs', { preset: join(dir, 'inner.yml') }))
    const run = await dsh(['status', '--preset', join(dir, 'preset.yml')])
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toMatch(/^dsh: row "outer" .*: plugin failed to start: row "bad" .*: plugin failed to start: boom /)
    expect(tags(line)).toEqual(['X_CODE', 'PRESET_PLUGIN_FAILED'])
  })
})

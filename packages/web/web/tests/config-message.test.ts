import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset } from 'dsh-core'

// What an operator reads when `searchProvider` has neither accepted shape, through a real preset
// load: the field, what was given and what is accepted (zod alone says "Invalid input"). An id that
// no provider registered is told at the search, with the registered ids (seam.test.ts W08).

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The message of a preset boot whose web row has this `searchProvider` (YAML flow text). */
async function loadError(searchProvider: string): Promise<{ code: unknown; message: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-web-config-'))
  dirs.push(dir)
  const preset = join(dir, 'preset.yml')
  writeFileSync(preset, `- id: web\n  name: dsh-web\n  config:\n    searchProvider: ${searchProvider}\n`)
  const error = (await bootPreset({ preset }).then(
    async (host) => {
      await host.stop()
      throw new Error('the preset booted')
    },
    (thrown: unknown) => thrown,
  )) as { code: unknown; message: string }
  return { code: error.code, message: error.message }
}

describe('a searchProvider that cannot work', () => {
  it('of neither shape: the load names the field, what was given and the shapes accepted', async () => {
    const accepted = 'expected one provider id (brave), "auto", or a failover list of ids ([deepseek-official, brave, tavily])'
    const number = await loadError('5')
    expect(number.code).toBe('PRESET_CONFIG_INVALID')
    expect(number.message).toContain(`config.searchProvider: ${accepted}; got 5 (a number)`)
    expect(number.message).not.toContain('Invalid input')
    expect((await loadError('{ brave: true }')).message).toContain(`config.searchProvider: ${accepted}; got {"brave":true} (an object)`)
    expect((await loadError('[brave, 3]')).message).toContain(`config.searchProvider: ${accepted}; got ["brave",3], whose item 2 is a number, not an id`)
    expect((await loadError('null')).message).toContain(`config.searchProvider: ${accepted}; got null`)
  })
})

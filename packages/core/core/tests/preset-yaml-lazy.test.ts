import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { holdsYamlParser, modulesLoadedBy } from '../../../../test-support/module-log.ts'
import { TWIN_SUFFIX } from '../src/preset/rows.ts'
import { presetTwin } from '../src/preset/yaml-text.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 5: the yaml parser was the largest code `dsh tools` compiled (≈ 270 KB of the
// ≈ 1.2 MB bundled), and a shipped preset is read through its parsed twin. The parser is imported
// only for a file that has to be parsed.

afterEach(removeTempDirs)

async function twinnedPreset(): Promise<string> {
  const preset = join(await tempDir('dsh-preset-yaml-'), 'preset.yml')
  const text = '- id: tools\n  name: dsh-core/tools\n'
  await writeFile(preset, text)
  await writeFile(`${preset}${TWIN_SUFFIX}`, presetTwin(text, 'preset test'))
  return preset
}

const compose = (preset: string, twin: boolean) =>
  modulesLoadedBy(`const { composePreset } = await import('dsh-core')\nawait composePreset({ preset: ${JSON.stringify(preset)}, presetTwin: ${twin} })\n`)

describe("dsh-core's preset reader", () => {
  it('loads no YAML parser for a preset read through its twin, and loads it for one it parses', async () => {
    const preset = await twinnedPreset()
    const [twinned, parsed] = await Promise.all([compose(preset, true), compose(preset, false)])
    // The log works: dsh-core itself is in it.
    expect(twinned.some((url) => /\/core\/core\/|\/dsh-core\//.test(url))).toBe(true)
    expect(twinned.filter(holdsYamlParser)).toEqual([])
    expect(parsed.filter(holdsYamlParser)).not.toEqual([])
  })
})

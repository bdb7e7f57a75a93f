import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { composePreset, PresetError } from '../src/index.ts'
import { TWIN_SUFFIX } from '../src/preset/rows.ts'
import { presetTwin } from '../src/preset/yaml-text.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 5: parsing a preset's YAML was about 4 % of `dsh tools`' CPU. A packed dsh-cli ships
// each named preset with its twin (`base.yml.json`: the text and its parsed rows); the boot uses the
// twin while it was made from exactly the file's text.

afterEach(removeTempDirs)

const YAML = '# rows\n- id: tools\n  name: dsh-core/tools\n- id: fs\n  name: dsh-core/fs\n  config: { a: 1 }\n'

async function presetWith(twin?: (text: string) => string): Promise<string> {
  const dir = await tempDir('dsh-preset-twin-')
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, YAML)
  if (twin) await writeFile(`${preset}${TWIN_SUFFIX}`, twin(YAML))
  return preset
}

const ids = async (preset: string, options: { presetTwin?: boolean; overlays?: string[] } = { presetTwin: true }) =>
  (await composePreset({ preset, ...options })).map((row) => [row.id, row.config])

describe('a preset twin', () => {
  it('made from the same text, stands in for the YAML', async () => {
    // A twin whose rows differ from its YAML shows which of the two the boot read.
    const preset = await presetWith((text) => JSON.stringify({ yaml: text, value: [{ id: 'from-twin', name: 'dsh-core/tools' }] }))
    expect(await ids(preset)).toEqual([['from-twin', undefined]])
  })

  it('is read only for a preset its package ships (presetTwin): beside a file the user names, the YAML is what runs', async () => {
    const preset = await presetWith((text) => JSON.stringify({ yaml: text, value: [{ id: 'from-twin', name: 'dsh-core/tools' }] }))
    expect(await ids(preset, {})).toEqual([['tools', undefined], ['fs', { a: 1 }]])
    expect(await ids(preset, { presetTwin: false })).toEqual([['tools', undefined], ['fs', { a: 1 }]])
  })

  it('never stands in for an overlay', async () => {
    const preset = await presetWith()
    const overlay = join(preset, '..', 'overlay.yml')
    const text = '- id: fs\n  config: { a: 2 }\n'
    await writeFile(overlay, text)
    await writeFile(`${overlay}${TWIN_SUFFIX}`, JSON.stringify({ yaml: text, value: [{ id: 'fs', config: { a: 3 } }] }))
    expect(await ids(preset, { presetTwin: true, overlays: [overlay] })).toEqual([['tools', undefined], ['fs', { a: 2 }]])
  })

  it("made by presetTwin, gives the YAML's rows", async () => {
    const plain = await ids(await presetWith())
    expect(plain).toEqual([['tools', undefined], ['fs', { a: 1 }]])
    expect(await ids(await presetWith((text) => presetTwin(text, 'preset test')))).toEqual(plain)
  })

  it('made from other text (the preset was edited), or unreadable, is ignored', async () => {
    const stale = await presetWith((text) => JSON.stringify({ yaml: `${text}# older\n`, value: [] }))
    expect(await ids(stale)).toEqual([['tools', undefined], ['fs', { a: 1 }]])
    const garbage = await presetWith(() => '{ not json')
    expect(await ids(garbage)).toEqual([['tools', undefined], ['fs', { a: 1 }]])
  })

  it('is never made from YAML the boot would refuse', () => {
    expect(() => presetTwin('- a: 1\n  a: 2\n', 'preset dup.yml')).toThrow(PresetError)
    expect(() => presetTwin('- !!binary aGVsbG8=\n', 'preset tagged.yml')).toThrow(/not plain data/)
  })
})

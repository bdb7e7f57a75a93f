import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, PresetError, type Host } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 5: the boot imported one row's plugin module after another, so Node's loader read
// each row's files only once the row before had been read, compiled and run. All are requested at
// once now; the rows are still checked, reported and applied in their order.

const hosts: Host[] = []
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

interface Meeting {
  secondStarted?: boolean
  release?: () => void
  firstSawSecond?: boolean
  applied: string[]
}

const meetings = ((globalThis as { __dshPresetImports?: Record<string, Meeting> }).__dshPresetImports ??= {})

/**
 * Two plugin modules in a fresh directory. The first one's top level waits until the second one's
 * has started running (or 20 s, a bound that only turns a hang into a failure): with one import
 * after another the second never starts while the first waits.
 */
async function meetingPreset(key: string, secondRow = ''): Promise<string> {
  const dir = await tempDir('dsh-preset-imports-')
  const state = `globalThis.__dshPresetImports[${JSON.stringify(key)}]`
  await writeFile(
    join(dir, 'first.mjs'),
    `const state = ${state}
state.firstSawSecond = state.secondStarted === true || await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(false), 20_000)
  state.release = () => { clearTimeout(timer); resolve(true) }
})
export const name = 'first'
export function apply() { state.applied.push('first') }
`,
  )
  await writeFile(
    join(dir, 'second.mjs'),
    `const state = ${state}
state.secondStarted = true
state.release?.()
export const name = 'second'
export function apply() { state.applied.push('second') }
`,
  )
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, `- id: first\n  name: ./first.mjs\n${secondRow || '- id: second\n  name: ./second.mjs\n'}`)
  return preset
}

describe('bootPreset imports every row at once', () => {
  it("a row's module is requested before the previous row's has finished running; rows apply in order", async () => {
    const meeting: Meeting = (meetings.together = { applied: [] })
    const host = await bootPreset({ preset: await meetingPreset('together'), lifetime: 'one-shot' })
    hosts.push(host)
    expect(meeting.firstSawSecond).toBe(true)
    expect(meeting.applied).toEqual(['first', 'second'])
    expect(host.rows.map((row) => row.row.id)).toEqual(['first', 'second'])
  })

  it('the first bad row is the one reported, and a later failing import is no unhandled rejection', async () => {
    meetings.failing = { applied: [] }
    const dir = await tempDir('dsh-preset-imports-')
    await writeFile(join(dir, 'broken.mjs'), 'throw new Error("broken at import")\n')
    await writeFile(join(dir, 'also-broken.mjs'), 'throw new Error("also broken at import")\n')
    const preset = join(dir, 'preset.yml')
    await writeFile(preset, '- id: broken\n  name: ./broken.mjs\n- id: also-broken\n  name: ./also-broken.mjs\n')
    const failure = await bootPreset({ preset, lifetime: 'one-shot' }).then(
      (host) => {
        hosts.push(host)
        return undefined
      },
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(PresetError)
    expect((failure as PresetError).code).toBe('PRESET_PLUGIN_INVALID')
    expect((failure as PresetError).message).toMatch(/broken.*broken at import/)
    expect((failure as PresetError).message).not.toContain('also broken')
  })
})

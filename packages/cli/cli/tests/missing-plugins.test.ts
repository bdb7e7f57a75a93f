import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { dsh, killRunning, oneStderrLine, removeTempDirs, tempDir } from './helpers.ts'

afterEach(killRunning)
afterAll(removeTempDirs)

describe('a preset whose plugins are not installed', () => {
  it('names every missing plugin in one message, with one npm install for all the packages', async () => {
    const dir = await tempDir()
    const preset = join(dir, 'preset.yml')
    await writeFile(
      preset,
      [
        '- id: tools',
        '  name: dsh-core/tools',
        '- id: first',
        '  name: dsh-missing-first',
        '- id: second',
        '  name: "@acme/dsh-missing-second/tool"',
        '- id: local',
        '  name: ./missing-plugin.mjs',
        '',
      ].join('\n'),
    )
    const run = await dsh(['status', '--preset', preset], { cwd: dir })
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toContain('3 plugins not found')
    expect(line).toContain(`row "first" (dsh-missing-first) in ${preset}: no plugin package "dsh-missing-first" is installed`)
    expect(line).toContain(`row "second" (@acme/dsh-missing-second/tool) in ${preset}: no plugin package "@acme/dsh-missing-second/tool" is installed`)
    expect(line).toContain(`row "local" (./missing-plugin.mjs) in ${preset}: plugin file ${join(dir, 'missing-plugin.mjs')} does not exist`)
    // The package of a subpath row, not the subpath (npm would read `a/b` as a GitHub repository).
    expect(line).toContain('npm install dsh-missing-first @acme/dsh-missing-second beside the packages they plug into')
  })
})

import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, type Host } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 16, item 2: in a long-lived host a promise rejection nobody handles is logged with the row
// whose code raised it, and the host keeps serving; a one-shot host keeps Node's default (the
// process ends), and `dsh` keeps its exit 70 (packages/cli/cli/tests/serve-input.test.ts).

const STRAY = fileURLToPath(new URL('./fixtures/stray/', import.meta.url))
const hosts: Host[] = []

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

async function preset(): Promise<string> {
  const dir = await tempDir('dsh-stray-')
  const file = join(dir, 'preset.yml')
  await writeFile(file, `- id: tools\n  name: dsh-core/tools\n- id: stray-row\n  name: ${JSON.stringify(join(STRAY, 'plugin.mjs'))}\n`)
  return file
}

function runHost(presetFile: string, lifetime: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(STRAY, 'host.mjs'), presetFile, lifetime], (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}` })
    })
  })
}

describe('a stray rejection', () => {
  it('in a long-lived host is logged with its row, and the host keeps working; stop() removes the listener', async () => {
    const run = await runHost(await preset(), 'long-lived')
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('call 1: ok')
    expect(run.output).toContain('call 2: ok')
    expect(run.output.match(/unhandled rejection in row "stray-row" \(.*plugin\.mjs\) in .*preset\.yml: stray rejection/g)).toHaveLength(2)
    expect(run.output).toContain('unhandledRejection listeners left: 0')
  })

  it('in a one-shot host ends the process as Node does by default', async () => {
    const run = await runHost(await preset(), 'one-shot')
    expect(run.code).not.toBe(0)
    expect(run.output).not.toContain('call 2')
    expect(run.output).toContain('stray rejection')
  })
})

describe('host.originOf', () => {
  it("names the row whose code is on the error's stack, not the runtime that called it", async () => {
    const host = await bootPreset({ preset: await preset(), containStrayRejections: false })
    hosts.push(host)
    const plugin = (await import(join(STRAY, 'plugin.mjs'))) as { strayError(message: string): Error }
    expect(host.originOf(plugin.strayError('x'))?.row.id).toBe('stray-row')
    const stack = (...files: string[]) => Object.assign(new Error('made'), { stack: ['Error: made', ...files.map((file, line) => `    at f${line} (${file}:${line + 1}:5)`)].join('\n') })
    const runtime = new URL('../src/tools/runtime.ts', import.meta.url).href
    const pluginFile = join(STRAY, 'plugin.mjs')
    // The runtime that called into the plugin is on top; the plugin's own frame below it wins.
    expect(host.originOf(stack(runtime, `file://${pluginFile}`))?.row.id).toBe('stray-row')
    expect(host.originOf(stack(runtime, 'node:internal/process/task_queues'))?.row.id).toBe('tools')
    expect(host.originOf(stack('/somewhere/else.mjs', 'node:internal/timers'))).toBeUndefined()
    expect(host.originOf('a string has no stack')).toBeUndefined()
    expect(host.originOf(Object.assign(new Error('no frames'), { stack: 'Error: no frames' }))).toBeUndefined()
  })
})

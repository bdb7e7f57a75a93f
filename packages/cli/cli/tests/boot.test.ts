import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dsh, dshIn, ECHO_PLUGIN, ECHO_PRESET, json, killRunning, oneStderrLine, removeTempDirs, tempDir, unchanged } from './helpers.ts'

const P = ['--preset', ECHO_PRESET]

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

async function preset(text: string, extra: Record<string, string> = {}): Promise<{ dir: string; file: string }> {
  const dir = await tempDir()
  const file = join(dir, 'preset.yml')
  await writeFile(file, text)
  for (const [name, content] of Object.entries(extra)) await writeFile(join(dir, name), content)
  return { dir, file }
}

describe('usage errors exit 2', () => {
  // Every line ends with its code: scripts route on `[CODE]`, never on the message.
  it.each([
    ['an unknown command', ['frobnicate', ...P], /^dsh: unknown command "frobnicate" \(dsh --help shows the usage\) \[USAGE_INVALID\]$/],
    ['no command', [...P], /^dsh: a command is required .*\[USAGE_INVALID\]$/],
    ['call without a tool name', ['call', ...P], /^dsh: call needs a tool name .*\[USAGE_INVALID\]$/],
    ['call with two JSON arguments', ['call', 'echo', '{}', '{}', ...P], /^dsh: call takes a tool name and one JSON argument.*\[USAGE_INVALID\]$/],
    ['arguments to tools', ['tools', 'extra', ...P], /^dsh: tools takes no arguments.*\[USAGE_INVALID\]$/],
    ['--message outside context', ['tools', '--message', 'hi', ...P], /^dsh: --message belongs to the context command .*\[USAGE_INVALID\]$/],
    ['an unknown option', ['tools', '--frob', ...P], /^dsh: .*--frob.*\[USAGE_INVALID\]$/],
    ['an unknown preset name', ['tools', '--preset', 'no-such-preset'], /^dsh: unknown preset "no-such-preset" .*\[PRESET_NOT_FOUND\]$/],
    ['a --cwd that does not exist', ['tools', '--cwd', '/no/such/dir/anywhere', ...P], /^dsh: --cwd \/no\/such\/dir\/anywhere does not exist .*\[WORKSPACE_INVALID\]$/],
    ['an unknown option of dsh trust', ['trust', '--frob'], /^dsh: unknown option "--frob" \(dsh trust --help shows the usage\) \[USAGE_INVALID\]$/],
    ['an unknown option of dsh mcp', ['mcp', 'list', '--frob'], /^dsh: unknown option "--frob" \(dsh mcp --help shows the usage\) \[USAGE_INVALID\]$/],
    ['an unknown dsh mcp command', ['mcp', 'frob'], /^dsh: unknown mcp command "frob" \(dsh mcp --help shows the usage\) \[USAGE_INVALID\]$/],
  ])('%s', async (_label, args, firstLine) => {
    const run = await dshIn(args)
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(oneStderrLine(run)).toMatch(firstLine)
  })

  it('a preset file that does not exist, in one line with PRESET_NOT_FOUND', async () => {
    const dir = await tempDir()
    const run = await dshIn(['tools', '--preset', join(dir, 'missing.yml')])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain(join(dir, 'missing.yml'))
    expect(oneStderrLine(run)).toMatch(/ \[PRESET_NOT_FOUND\]$/)
  })

  it('a preset without the row the command needs: PRESET_ROW_MISSING', async () => {
    const { file } = await preset(`- id: tools\n  name: dsh-core/tools\n`)
    const run = await dshIn(['status', '--preset', file])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toBe('dsh: this preset mounts no dsh-core/readiness row [PRESET_ROW_MISSING]')
  })
})

describe('boot errors exit 2 with one line naming the row and leave the preset unchanged', () => {
  it('a preset naming a plugin that does not exist', async () => {
    const { file } = await preset(`${CORE_ROWS}- id: ghost\n  name: dsh-no-such-plugin\n`)
    const run = await unchanged([file], () => dshIn(['tools', '--json', '--preset', file]))
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    const line = oneStderrLine(run)
    expect(line).toMatch(/^dsh: /)
    expect(line).toContain('row "ghost"')
    expect(line).toContain('dsh-no-such-plugin')
    expect(line).toMatch(/ \[PRESET_PLUGIN_NOT_FOUND\]$/)
  })

  it('a preset with an invalid row config', async () => {
    const { file } = await preset(`${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO_PLUGIN)}\n  config:\n    timeoutMs: 'x'\n`)
    const run = await unchanged([file], () => dshIn(['call', 'echo', '{"text":"hi"}', '--json', '--preset', file]))
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    const line = oneStderrLine(run)
    expect(line).toContain('row "echo"')
    expect(line).toContain('config.timeoutMs')
    expect(line).toMatch(/ \[PRESET_CONFIG_INVALID\]$/)
  })

  it('a core row with an invalid config', async () => {
    const { file } = await preset(CORE_ROWS.replace('name: dsh-core/tools', 'name: dsh-core/tools\n  config:\n    abandonAfterMs: -1'))
    const run = await unchanged([file], () => dshIn(['status', '--preset', file]))
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toContain('row "tools"')
    expect(line).toContain('config.abandonAfterMs')
  })

  it('a plugin whose apply throws (cordis logs held back)', async () => {
    const { file } = await preset(`${CORE_ROWS}- id: thrower\n  name: ./thrower.mjs\n`, {
      'thrower.mjs': `export const name = 'thrower'\nexport function apply() { throw new Error('kaboom in apply') }\n`,
    })
    const run = await unchanged([file], () => dsh(['tools', '--preset', file]))
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toContain('row "thrower"')
    expect(line).toContain('kaboom in apply')
  })

  it('a plugin needing a service no row provides', async () => {
    const { file } = await preset(`- id: tools\n  name: dsh-core/tools\n- id: needy\n  name: ./needy.mjs\n`, {
      'needy.mjs': `export const name = 'needy'\nexport const inject = ['sessions']\nexport function apply() {}\n`,
    })
    const run = await unchanged([file], () => dshIn(['tools', '--preset', file]))
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toContain('row "needy"')
    expect(line).toContain('sessions')
  })

  it('an overlay that breaks a row config, leaving both files unchanged', async () => {
    const { dir } = await preset('')
    const overlay = join(dir, 'overlay.yml')
    await writeFile(overlay, '# overlay\n- id: echo\n  config:\n    timeoutMs: 0\n')
    const run = await unchanged([ECHO_PRESET, overlay], () => dshIn(['tools', ...P, '--config', overlay]))
    expect(run.code).toBe(2)
    const line = oneStderrLine(run)
    expect(line).toContain('row "echo"')
    expect(line).toContain('config.timeoutMs')
  })
})

describe('dsh status', () => {
  it('--json has the documented shape', async () => {
    const run = await dshIn(['status', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    const { capabilities } = json<{ capabilities: Record<string, unknown>[] }>(run)
    expect(Object.keys(json(run))).toEqual(['capabilities'])
    expect(capabilities.length).toBeGreaterThan(0)
    for (const row of capabilities) {
      expect(Object.keys(row).sort()).toEqual(['configured', 'detail', 'id', 'state', 'surface', 'tools'])
      expect(typeof row.surface).toBe('string')
      expect(typeof row.id).toBe('string')
      expect(typeof row.configured).toBe('boolean')
      expect(Array.isArray(row.tools)).toBe(true)
      expect(['ready', 'idle', 'starting', 'indexing', 'unavailable', 'crashed']).toContain(row.state)
      expect(typeof row.detail).toBe('string')
    }
    expect(capabilities).toContainEqual({ surface: 'tool', id: 'echo', configured: true, tools: ['echo'], state: 'ready', detail: '' })
  })

  it('prints a table without --json', async () => {
    const run = await dshIn(['status', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.split('\n')[0]).toMatch(/^surface\s+id\s+state\s+tools\s+detail$/)
    expect(run.stdout).toMatch(/\ntool\s+echo\s+ready\s+echo/)
  })

  it('refuses a preset without a readiness row with exit 2', async () => {
    const { file } = await preset('- id: tools\n  name: dsh-core/tools\n')
    const run = await dshIn(['status', '--preset', file])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain('readiness')
  })

  it('status --preset coding (what pnpm start runs) exits 0', async () => {
    // Other surfaces add rows to coding.yml; only the contract is checked, not which rows exist.
    const run = await dsh(['status', '--preset', 'coding', '--json'])
    expect(run.code, run.stderr).toBe(0)
    const { capabilities } = json<{ capabilities: Record<string, unknown>[] }>(run)
    expect(Array.isArray(capabilities)).toBe(true)
    for (const row of capabilities) expect(Object.keys(row).sort()).toEqual(['configured', 'detail', 'id', 'state', 'surface', 'tools'])
  })
})

describe('--config overlays', () => {
  it('an overlay changes a row config (echo timeoutMs) without touching either file', async () => {
    const dir = await tempDir()
    const overlay = join(dir, 'slow-ok.yml')
    await writeFile(overlay, '# let echo take its time\n- id: echo\n  config:\n    timeoutMs: 10000\n')
    const args = ['call', 'echo', '{"text":"patient","delayMs":1000}', '--json', ...P]
    // Without the overlay the preset budget (500 ms) applies.
    const plain = await dshIn(args)
    expect(plain.code).toBe(1)
    expect(json(plain).error.code).toBe('TOOL_TIMEOUT')
    const patched = await unchanged([ECHO_PRESET, overlay], () => dshIn([...args, '--config', overlay]))
    expect(patched.code, patched.stderr).toBe(0)
    expect(json(patched).value.text).toBe('patient')
  })

  it('an overlay can add a row and a second overlay can disable it again', async () => {
    const dir = await tempDir()
    const add = join(dir, 'add.yml')
    const drop = join(dir, 'drop.yml')
    await writeFile(add, `- id: second\n  name: ./extra.mjs\n`)
    await writeFile(
      join(dir, 'extra.mjs'),
      `export const name = 'extra'\nexport const inject = ['tools']\nexport function apply(ctx) {\n  ctx.tools.register({ name: 'extra_tool', description: 'Added by an overlay.', parameters: { type: 'object' }, execute: async () => ({}) })\n}\n`,
    )
    await writeFile(drop, '- id: second\n  disabled: true\n')
    const added = await dshIn(['tools', '--json', ...P, '--config', add])
    expect(added.code, added.stderr).toBe(0)
    expect(json(added).tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'extra_tool'])
    const dropped = await dshIn(['tools', '--json', ...P, '--config', add, '--config', drop])
    expect(dropped.code, dropped.stderr).toBe(0)
    expect(json(dropped).tools.map((t: { name: string }) => t.name)).toEqual(['echo'])
  })

  it('a relative --config path is resolved against the directory dsh runs in', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'overlay.yml'), '- id: echo\n  config:\n    timeoutMs: 10000\n')
    const run = await dshIn(['call', 'echo', '{"text":"rel","delayMs":1000}', '--json', '--preset', ECHO_PRESET, '--config', 'overlay.yml'], { cwd: dir })
    expect(run.code, run.stderr).toBe(0)
    expect(json(run).value).toEqual({ text: 'rel', workspace: dir })
    expect(await readFile(join(dir, 'overlay.yml'), 'utf8')).toBe('- id: echo\n  config:\n    timeoutMs: 10000\n')
  })
})

describe('a preset or overlay that is not a small regular file is refused at once (PRESET_INVALID, exit 2)', () => {
  it('a FIFO with no writer: one line, no hang (it blocked the open for good, SIGINT and SIGTERM included)', async () => {
    const dir = await tempDir()
    const fifo = join(dir, 'overlay.yml')
    execFileSync('mkfifo', [fifo])
    // A real process: the old read blocked a threadpool thread, which the process's exit then waited on.
    for (const args of [['tools', ...P, '--config', fifo], ['mcp', 'add', '--config', fifo, 'x', '--', 'echo']]) {
      const run = await dsh(args, { timeoutMs: 60_000 })
      expect(run.code, run.stderr).toBe(2)
      expect(oneStderrLine(run)).toMatch(new RegExp(`${fifo} cannot be read: it is not a regular file .*\\[(PRESET_INVALID|USAGE_INVALID)\\]$`))
    }
  })

  it('dsh mcp list and get read the composition as every command does: a missing, invalid or unknown one exits 2 with its PRESET_* code', async () => {
    const dir = await tempDir()
    const bad = join(dir, 'bad.yml')
    await writeFile(bad, '- id: x\n  name: [unclosed\n')
    for (const [args, code] of [
      [['mcp', 'list', '--json', '--config', join(dir, 'missing.yml')], 'PRESET_NOT_FOUND'],
      [['mcp', 'list', '--json', '--config', bad], 'PRESET_INVALID'],
      [['mcp', 'get', 'x', '--json', '--config', bad], 'PRESET_INVALID'],
      [['mcp', 'list', '--preset', 'no-such-preset'], 'PRESET_NOT_FOUND'],
    ] as const) {
      const run = await dshIn(args)
      expect([run.code, run.stdout], run.stderr).toEqual([2, ''])
      expect(oneStderrLine(run)).toMatch(new RegExp(` \\[${code}\\]$`))
    }
  })

  it('a device (/dev/zero) and a file over 4 MiB are refused without reading them whole', async () => {
    const { file } = await preset(`# ${'x'.repeat(4 * 1024 * 1024)}\n${CORE_ROWS}`)
    for (const [config, why] of [['/dev/zero', 'it is not a regular file'], [file, 'it is larger than 4194304 bytes']] as const) {
      const run = await dshIn(['tools', ...P, '--config', config])
      expect(run.code, run.stderr).toBe(2)
      expect(oneStderrLine(run)).toBe(`dsh: overlay ${config} cannot be read: ${why} [PRESET_INVALID]`)
    }
  })
})

import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, composePreset, PresetError, type BootOptions, type Host } from '../src/index.ts'
import { expectAllGone, removeTempDirs, tempDir } from './helpers.ts'

const fixture = (file: string) => fileURLToPath(new URL(`./fixtures/${file}`, import.meta.url))
const PROBE = fixture('probe.ts')
const THROWS = fixture('throws.ts')
const NEEDS_MISSING = fixture('needs-missing.ts')
const NOT_A_PLUGIN = fixture('not-a-plugin.ts')
const GRACEFUL = fixture('graceful.ts')
const ECHO = fileURLToPath(new URL('../../../../examples/echo/echo.ts', import.meta.url))

/** The core rows, written with comments and quoting a rewriting loader would not preserve. */
const CORE_ROWS = `# core rows (this comment must survive)
- id: tools
  name: 'dsh-core/tools'
  config:
    abandonAfterMs: 250   # trailing comment
- id: fs
  name: "dsh-core/fs"
- id: subprocess
  name: dsh-core/subprocess
- id: sessions
  name: dsh-core/sessions
- id: credentials
  name: dsh-core/credentials
- id: readiness
  name: dsh-core/readiness
`

const hosts: Host[] = []

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

async function files(entries: Record<string, string>): Promise<{ dir: string; path: (name: string) => string }> {
  const dir = await tempDir('dsh-preset-')
  for (const [name, text] of Object.entries(entries)) await writeFile(join(dir, name), text)
  return { dir, path: (name) => join(dir, name) }
}

async function boot(options: BootOptions): Promise<Host> {
  const host = await bootPreset(options)
  hosts.push(host)
  return host
}

/** Boots, expects a PresetError, and checks every given file is byte-for-byte what it was. */
async function bootFails(options: BootOptions): Promise<PresetError> {
  const paths = [options.preset, ...(options.overlays ?? [])]
  const before = await Promise.all(paths.map((path) => readFile(path).catch(() => undefined)))
  let failure: unknown
  try {
    hosts.push(await bootPreset(options))
  } catch (error) {
    failure = error
  }
  const after = await Promise.all(paths.map((path) => readFile(path).catch(() => undefined)))
  after.forEach((bytes, index) => expect(bytes?.equals(before[index]!) ?? before[index] === undefined, `${paths[index]} changed`).toBe(true))
  expect(failure).toBeInstanceOf(PresetError)
  return failure as PresetError
}

async function expectUnchanged(paths: string[], body: () => Promise<void>): Promise<void> {
  const before = await Promise.all(paths.map((path) => readFile(path)))
  await body()
  const after = await Promise.all(paths.map((path) => readFile(path)))
  after.forEach((bytes, index) => expect(bytes.equals(before[index]!), `${paths[index]} changed`).toBe(true))
}

const probeRow = (id: string, config: Record<string, unknown>, extra = '') =>
  `- id: ${id}\n  name: ${JSON.stringify(PROBE)}\n${extra}  config: ${JSON.stringify(config)}\n`

async function probeValue(host: Host, tool: string): Promise<unknown> {
  const result = await host.app.tools.execute({ name: tool, arguments: {} })
  if (result.isError) throw new Error(`${tool}: ${result.error.code} ${result.error.message}`)
  return result.value
}

const toolNames = (host: Host) => host.app.tools.catalog().map((t) => t.name)

describe('booting', () => {
  it('boots the core rows and stops them, never writing the preset', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS })
    await expectUnchanged([path('preset.yml')], async () => {
      const host = await boot({ preset: path('preset.yml') })
      expect(host.rows.map((r) => r.row.id)).toEqual(['tools', 'fs', 'subprocess', 'sessions', 'credentials', 'readiness'])
      expect(host.rows[0]?.label).toBe(`row "tools" (dsh-core/tools) in ${path('preset.yml')}`)
      for (const service of ['tools', 'fs', 'subprocess', 'sessions', 'credentials', 'readiness']) {
        expect(host.app.get(service), service).toBeDefined()
      }
      expect(host.app.tools.catalog()).toEqual([])
      expect(await host.app.readiness.report()).toEqual([])
      hosts.splice(hosts.indexOf(host), 1)
      await host.stop()
      expect(host.app.get('tools')).toBeUndefined()
    })
  })

  it('passes row config to the plugin (the tools row abandonAfterMs is honoured as valid)', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS + probeRow('probe', { tool: 'probe_a', label: 'L', nested: { a: 1 } }) })
    const host = await boot({ preset: path('preset.yml') })
    expect(await probeValue(host, 'probe_a')).toEqual({ label: 'L', nested: { a: 1 } })
  })

  it('loads a plugin named by a path relative to the preset file', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: local\n  name: ./local-plugin.mjs\n`,
      'local-plugin.mjs': `export const name = 'local'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'local_tool', description: 'From a file next to the preset.', parameters: { type: 'object' }, execute: async () => ({ local: true }) })
}
`,
    })
    const host = await boot({ preset: path('preset.yml') })
    expect(await probeValue(host, 'local_tool')).toEqual({ local: true })
  })

  it('skips disabled rows', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS + probeRow('on', { tool: 'on_tool' }) + probeRow('off', { tool: 'off_tool' }, '  disabled: true\n') })
    const host = await boot({ preset: path('preset.yml') })
    expect(toolNames(host)).toEqual(['on_tool'])
    expect(host.rows.map((r) => r.row.id)).not.toContain('off')
  })

  it('boots the echo example and runs its tool', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO)}\n  config:\n    timeoutMs: 5000\n` })
    const host = await boot({ preset: path('preset.yml') })
    const session = host.app.sessions.create({ cwd: '/tmp' })
    const result = await host.app.tools.execute({ name: 'echo', arguments: { text: 'hi' }, session })
    expect(result).toEqual({ isError: false, value: { text: 'hi', workspace: '/tmp' }, content: [{ type: 'text', text: 'hi' }] })
  })

  it('reads an empty preset file as no rows', async () => {
    const { path } = await files({ 'preset.yml': '# nothing yet\n' })
    const host = await boot({ preset: path('preset.yml') })
    expect(host.rows).toEqual([])
  })
})

describe('overlays', () => {
  const base = () =>
    CORE_ROWS + probeRow('probe_a', { tool: 'probe_a', label: 'base', nested: { a: 1, b: 2 } }) + probeRow('probe_b', { tool: 'probe_b', label: 'base' })

  it('patch a row by id with deep-merged config, disable a row, and append new rows', async () => {
    const { path } = await files({
      'preset.yml': base(),
      'overlay.yml': [
        '# patch, disable, append',
        '- id: probe_a',
        '  config:',
        '    nested:',
        '      b: 3',
        '      c: 4',
        '- id: probe_b',
        '  disabled: true',
        probeRow('probe_extra', { tool: 'probe_extra', label: 'added' }),
      ].join('\n'),
    })
    await expectUnchanged([path('preset.yml'), path('overlay.yml')], async () => {
      const host = await boot({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
      expect(toolNames(host)).toEqual(['probe_a', 'probe_extra'])
      expect(await probeValue(host, 'probe_a')).toEqual({ label: 'base', nested: { a: 1, b: 3, c: 4 } })
      expect(await probeValue(host, 'probe_extra')).toEqual({ label: 'added', nested: {} })
    })
  })

  it('apply in order, the later overlay winning', async () => {
    const { path } = await files({
      'preset.yml': base(),
      'one.yml': '- id: probe_a\n  config:\n    label: first\n    nested:\n      a: 10\n',
      'two.yml': '- id: probe_a\n  config:\n    label: second\n',
    })
    const host = await boot({ preset: path('preset.yml'), overlays: [path('one.yml'), path('two.yml')] })
    expect(await probeValue(host, 'probe_a')).toEqual({ label: 'second', nested: { a: 10, b: 2 } })
  })

  it('can enable a row the preset disabled', async () => {
    const { path } = await files({
      'preset.yml': CORE_ROWS + probeRow('dormant', { tool: 'dormant' }, '  disabled: true\n'),
      'overlay.yml': '- id: dormant\n  disabled: false\n',
    })
    const host = await boot({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(toolNames(host)).toEqual(['dormant'])
  })

  it('patch a row nested in a group', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: grp\n  name: cordis/group\n  config:\n    - id: inner\n      name: ${JSON.stringify(PROBE)}\n      config:\n        tool: inner\n        label: base\n`,
      'overlay.yml': '- id: inner\n  config:\n    label: patched\n',
    })
    const host = await boot({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(await probeValue(host, 'inner')).toEqual({ label: 'patched', nested: {} })
  })

  it('patching only the config of a row keeps its relative plugin path meant from the preset file', async () => {
    const plugin = (tool: string) => `export const name = '${tool}'
export const inject = ['tools']
export const Config = (config) => config ?? {}
export function apply(ctx, config) {
  ctx.tools.register({ name: '${tool}', description: 'Local.', parameters: { type: 'object' }, execute: async () => ({ config }) })
}
`
    const presetDir = await files({ 'preset.yml': `${CORE_ROWS}- id: local\n  name: ./local.mjs\n  config:\n    a: 1\n`, 'local.mjs': plugin('from_preset_dir') })
    // The overlay lives elsewhere, next to a different plugin file of the same name.
    const overlayDir = await files({
      'config-only.yml': '- id: local\n  config:\n    b: 2\n',
      'rename.yml': '- id: local\n  name: ./local.mjs\n',
      'local.mjs': plugin('from_overlay_dir'),
    })
    const patched = await boot({ preset: presetDir.path('preset.yml'), overlays: [overlayDir.path('config-only.yml')] })
    expect(toolNames(patched)).toEqual(['from_preset_dir'])
    expect(await probeValue(patched, 'from_preset_dir')).toEqual({ config: { a: 1, b: 2 } })
    // A row whose name an overlay replaces resolves the new name from the overlay's directory.
    const renamed = await boot({ preset: presetDir.path('preset.yml'), overlays: [overlayDir.path('rename.yml')] })
    expect(toolNames(renamed)).toEqual(['from_overlay_dir'])
  })

  it('refuse an overlay row that matches nothing and has no name, leaving both files unchanged', async () => {
    const { path } = await files({ 'preset.yml': base(), 'overlay.yml': '- id: no_such_row\n  config:\n    x: 1\n' })
    const error = await bootFails({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain(path('overlay.yml'))
    expect(error.message).toContain('no_such_row')
  })

  it('refuse a missing overlay file with PRESET_NOT_FOUND', async () => {
    const { path } = await files({ 'preset.yml': base() })
    const error = await bootFails({ preset: path('preset.yml'), overlays: [path('missing.yml')] })
    expect(error.code).toBe('PRESET_NOT_FOUND')
  })

  it('compose without loading anything', async () => {
    const { path } = await files({ 'preset.yml': base(), 'overlay.yml': '- id: probe_b\n  config:\n    label: over\n' })
    const rows = await composePreset({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    const row = rows.find((r) => r.id === 'probe_b')
    expect(row?.config).toEqual({ tool: 'probe_b', label: 'over' })
    expect(row?.file).toBe(path('overlay.yml'))
  })
})

describe('groups', () => {
  const group = (id: string, rows: string, extra = '') =>
    `- id: ${id}\n  name: cordis/group\n${extra}  config:\n${rows
      .split('\n')
      .filter(Boolean)
      .map((line) => `    ${line}`)
      .join('\n')}\n`

  it('load the rows of a group and of a nested group', async () => {
    const inner = group('inner_grp', probeRow('g2', { tool: 'g2' }))
    const { path } = await files({ 'preset.yml': CORE_ROWS + group('grp', probeRow('g1', { tool: 'g1' }) + inner) })
    const host = await boot({ preset: path('preset.yml') })
    expect(toolNames(host)).toEqual(['g1', 'g2'])
    expect(host.rows.map((r) => r.row.id)).toContain('g2')
  })

  it('skip every row of a disabled group', async () => {
    const { path } = await files({
      'preset.yml': CORE_ROWS + probeRow('outside', { tool: 'outside' }) + group('off_grp', probeRow('g1', { tool: 'g1' }) + probeRow('g2', { tool: 'g2' }), '  disabled: true\n'),
    })
    const host = await boot({ preset: path('preset.yml') })
    expect(toolNames(host)).toEqual(['outside'])
  })

  it('composePreset withDisabled lists the rows a disabled row or group turns off, marked disabled (the boot\'s list is unchanged)', async () => {
    const { path } = await files({
      'preset.yml': CORE_ROWS + probeRow('outside', { tool: 'outside' }) + probeRow('off', { tool: 'off' }, '  disabled: true\n') + group('off_grp', probeRow('g1', { tool: 'g1' })),
      'overlay.yml': '- id: off_grp\n  disabled: true\n',
    })
    const options = { preset: path('preset.yml'), overlays: [path('overlay.yml')] }
    const every = await composePreset(options, { withDisabled: true })
    expect(every.filter((row) => ['outside', 'off', 'g1'].includes(row.id)).map((row) => [row.id, row.disabled])).toEqual([['outside', false], ['off', true], ['g1', true]])
    expect((await composePreset(options)).map((row) => row.id).filter((id) => ['outside', 'off', 'g1'].includes(id))).toEqual(['outside'])
  })

  it('composePreset withDisabled names the file that turned each row off (disabledFile), not a later file that only patched it', async () => {
    const { path } = await files({
      'preset.yml': CORE_ROWS + probeRow('off', { tool: 'off' }, '  disabled: true\n') + probeRow('later', { tool: 'later' }) + group('off_grp', probeRow('g1', { tool: 'g1' })),
      'off.yml': '- id: later\n  disabled: true\n- id: off_grp\n  disabled: true\n',
      'patch.yml': '- id: later\n  config: { tool: later2 }\n- id: off\n  config: { tool: off2 }\n- id: g1\n  config: { tool: g12 }\n',
    })
    const every = await composePreset({ preset: path('preset.yml'), overlays: [path('off.yml'), path('patch.yml')] }, { withDisabled: true })
    const byId = (id: string) => every.find((row) => row.id === id)!
    expect(['off', 'later', 'g1'].map((id) => [id, byId(id).file, byId(id).disabledFile])).toEqual([
      ['off', path('patch.yml'), path('preset.yml')],
      ['later', path('patch.yml'), path('off.yml')],
      // A row of a disabled group is turned off by the file that disabled the group.
      ['g1', path('patch.yml'), path('off.yml')],
    ])
    // And the group that holds the flag is named; a row turned off itself names none.
    expect(['off', 'later', 'g1'].map((id) => byId(id).disabledGroup)).toEqual([undefined, undefined, 'off_grp'])
  })

  it('can be disabled by an overlay', async () => {
    const { path } = await files({
      'preset.yml': CORE_ROWS + group('grp', probeRow('g1', { tool: 'g1' })),
      'overlay.yml': '- id: grp\n  disabled: true\n',
    })
    const host = await boot({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(toolNames(host)).toEqual([])
  })

  it('refuse a group whose config is not a list', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: grp\n  name: cordis/group\n  config:\n    not: a list\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain('grp')
  })
})

describe('failures name the row and leave the files unchanged', () => {
  it('a plugin that does not exist → PRESET_PLUGIN_NOT_FOUND', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: ghost\n  name: dsh-no-such-plugin-package\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_NOT_FOUND')
    expect(error.message).toContain('row "ghost"')
    expect(error.message).toContain('npm install dsh-no-such-plugin-package')
    expect(error.message).toContain(path('preset.yml'))
  })

  it('a relative plugin file that does not exist → PRESET_PLUGIN_NOT_FOUND', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: lost\n  name: ./lost.ts\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_NOT_FOUND')
    expect(error.message).toContain('row "lost"')
  })

  it('a module that exports no plugin → PRESET_PLUGIN_INVALID', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: inert\n  name: ${JSON.stringify(NOT_A_PLUGIN)}\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_INVALID')
    expect(error.message).toContain('row "inert"')
  })

  it('invalid config of a core row → PRESET_CONFIG_INVALID naming the row and the field', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS.replace('abandonAfterMs: 250', 'abandonAfterMs: -1') })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "tools"')
    expect(error.message).toContain('config.abandonAfterMs')
  })

  it('an unknown config key of a core row → PRESET_CONFIG_INVALID', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}`.replace('name: dsh-core/subprocess', 'name: dsh-core/subprocess\n  config:\n    graceMS: 10') })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "subprocess"')
    expect(error.message).toContain('graceMS')
  })

  it('invalid config of the echo example → PRESET_CONFIG_INVALID naming config.timeoutMs', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO)}\n  config:\n    timeoutMs: 'x'\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "echo"')
    expect(error.message).toContain('config.timeoutMs')
  })

  it('invalid config introduced by an overlay → PRESET_CONFIG_INVALID naming the overlay', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO)}\n`,
      'overlay.yml': '- id: echo\n  config:\n    timeoutMs: -3\n',
    })
    const error = await bootFails({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "echo"')
    expect(error.message).toContain('config.timeoutMs')
    expect(error.message).toContain(path('overlay.yml'))
  })

  it('a plugin whose apply throws → PRESET_PLUGIN_FAILED', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: thrower\n  name: ${JSON.stringify(THROWS)}\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_FAILED')
    expect(error.message).toContain('row "thrower"')
    expect(error.message).toContain('boom while applying')
  })

  it('a plugin that injects a service no row provides → PRESET_PLUGIN_UNSATISFIED', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: needy\n  name: ${JSON.stringify(NEEDS_MISSING)}\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_UNSATISFIED')
    expect(error.message).toContain('row "needy"')
    expect(error.message).toContain('noSuchServiceAnywhere')
    expect(error.message).not.toContain('tools,')
  })

  it('a plugin that needs tools when no row provides them → PRESET_PLUGIN_UNSATISFIED', async () => {
    const { path } = await files({ 'preset.yml': probeRow('orphan', { tool: 'orphan' }) })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_UNSATISFIED')
    expect(error.message).toContain('row "orphan"')
    expect(error.message).toContain('tools')
  })

  it('duplicate ids → PRESET_INVALID', async () => {
    const { path } = await files({ 'preset.yml': `${CORE_ROWS}- id: tools\n  name: ${JSON.stringify(PROBE)}\n  config: { tool: x }\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain('"tools"')
  })

  it('two rows naming the same plugin without ids → PRESET_INVALID (the id defaults to the name)', async () => {
    const { path } = await files({ 'preset.yml': `- name: dsh-core/tools\n- name: dsh-core/fs\n- name: dsh-core/tools\n` })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain('"dsh-core/tools"')
  })

  it('two rows loading the same non-reusable plugin → PRESET_INVALID (cordis would silently apply it once)', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO)}\n- id: echo_again\n  name: ${JSON.stringify(ECHO)}\n  config:\n    timeoutMs: 5000\n`,
    })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain('row "echo_again"')
    expect(error.message).toContain('row "echo"')
  })

  it('two rows loading the same reusable plugin both apply', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS + probeRow('one', { tool: 'one' }) + probeRow('two', { tool: 'two' }) })
    const host = await boot({ preset: path('preset.yml') })
    expect(toolNames(host)).toEqual(['one', 'two'])
  })

  it('duplicate ids across a group → PRESET_INVALID', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS + probeRow('same', { tool: 'a' })}- id: grp\n  name: cordis/group\n  config:\n    - id: same\n      name: ${JSON.stringify(PROBE)}\n      config: { tool: b }\n`,
    })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain('"same"')
  })

  it.each([
    ['a cyclic alias', '- id: a\n  name: dsh-core/tools\n  config: &x\n    k: *x\n', 'row 1: config.k is a cycle'],
    ['an alias bomb', '- name: dsh-core/tools\n  config:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n    a1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n    a2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]\n    a3: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]\n    a4: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3]\n    a5: &a5 [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4]\n    a6: &a6 [*a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5]\n    a7: &a7 [*a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6]\n    a8: &a8 [*a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7]\n    a9: &a9 [*a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8]\n', 'resource exhaustion'],
    ['a !!binary value', '- name: dsh-core/tools\n  config:\n    blob: !!binary aGVsbG8=\n', 'row 1: config.blob is a Buffer object, not plain JSON'],
  ])('%s → PRESET_INVALID in one short line naming the file', async (_label, text, reason) => {
    const { path } = await files({ 'preset.yml': text })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain(path('preset.yml'))
    expect(error.message).toContain(reason)
    expect(error.message.length).toBeLessThan(300)
  })

  it('a byte order mark at the start of a preset is not part of the YAML', async () => {
    const { path } = await files({ 'preset.yml': `\uFEFF${CORE_ROWS}` })
    expect(toolNames(await boot({ preset: path('preset.yml') }))).toEqual([])
  })

  it('an overlay that renames a row to a plugin that does not exist is reported against the overlay', async () => {
    const { path } = await files({ 'preset.yml': CORE_ROWS, 'overlay.yml': '- id: tools\n  name: dsh-no-such-plugin\n' })
    const error = await bootFails({ preset: path('preset.yml'), overlays: [path('overlay.yml')] })
    expect(error.code).toBe('PRESET_PLUGIN_NOT_FOUND')
    expect(error.message).toContain(`row "tools" (dsh-no-such-plugin) in ${path('overlay.yml')}`)
  })

  it('an apply that never settles → PRESET_PLUGIN_TIMEOUT naming the row', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: stuck\n  name: ./stuck.mjs\n`,
      'stuck.mjs': "export const name = 'stuck'\nexport async function apply() { await new Promise(() => {}) }\n",
    })
    const error = await bootFails({ preset: path('preset.yml'), startTimeoutMs: 300 })
    expect(error.code).toBe('PRESET_PLUGIN_TIMEOUT')
    expect(error.message).toBe(`row "stuck" (./stuck.mjs) in ${path('preset.yml')}: plugin did not finish starting within 300 ms`)
  })

  it('an aborted boot stops what started → PRESET_BOOT_ABORTED', async () => {
    const { path } = await files({
      'preset.yml': `${CORE_ROWS}- id: slow\n  name: ./slow.mjs\n`,
      'slow.mjs': "export const name = 'slow'\nexport async function apply() { await new Promise((resolve) => setTimeout(resolve, 30_000)) }\n",
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('interrupted')), 200)
    const error = await bootFails({ preset: path('preset.yml'), signal: controller.signal })
    expect(error.code).toBe('PRESET_BOOT_ABORTED')
  })

  it('a missing preset file → PRESET_NOT_FOUND', async () => {
    const { path } = await files({})
    expect((await bootFails({ preset: path('missing.yml') })).code).toBe('PRESET_NOT_FOUND')
  })

  it.each([
    ['invalid YAML', '- id: a\n  name: [unclosed\n'],
    ['a mapping instead of a list', 'tools:\n  name: dsh-core/tools\n'],
    ['a row without a name', '- id: nameless\n'],
    ['a row with an unknown key', '- id: typo\n  nmae: dsh-core/tools\n'],
    ['a duplicated key', '- id: a\n  id: b\n  name: dsh-core/tools\n'],
  ])('%s → PRESET_INVALID', async (_label, text) => {
    const { path } = await files({ 'preset.yml': text })
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_INVALID')
    expect(error.message).toContain(path('preset.yml'))
  })

  it('a failed boot stops what had started, letting its teardown finish', async () => {
    const { path } = await files({})
    const report = path('report.json')
    await writeFile(
      path('preset.yml'),
      `- name: dsh-core/subprocess\n- id: graceful\n  name: ${JSON.stringify(GRACEFUL)}\n  config:\n    report: ${JSON.stringify(report)}\n- id: thrower\n  name: ${JSON.stringify(THROWS)}\n`,
    )
    const error = await bootFails({ preset: path('preset.yml') })
    expect(error.code).toBe('PRESET_PLUGIN_FAILED')
    expect(error.message).toContain('row "thrower"')
    const outcome = JSON.parse(await readFile(report, 'utf8')) as { pid: number; code?: number | null; signal?: string | null }
    expect(outcome).toEqual({ pid: outcome.pid, code: 0, signal: null })
    await expectAllGone([outcome.pid])
  })
})

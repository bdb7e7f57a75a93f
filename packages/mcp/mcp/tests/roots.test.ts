// Roots are opt-in per row (issue 26 item 3). Without `roots: true` the client does not declare the
// capability, so a server cannot widen its sandbox to the workspace: the real server-filesystem
// replaces its configured allow-list with the client's roots. With `roots: true` the client answers
// roots/list with the workspace (the sessions' workspaces, else the host's) and says
// roots/list_changed when that changes (issue 17 item 17), against the real server-everything.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { dshInWorker } from './fixtures/dsh-run.ts'
import { eventually, fixtureRow, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'

afterEach(stopRigs)

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-mcp-roots-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const everything: RowInput = { transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], shutdownGraceMs: 500, roots: true }

/** `dsh …` through the CLI's main in this worker (its subject is the composition's roots, not the process). */
const dsh = (args: string[]) => dshInWorker(args, join(scratch, 'home'))

/** An overlay with one dsh-mcp row; `extra` is YAML lines under `config:`. */
function overlay(name: string, lines: string[]): string {
  const file = join(scratch, `${name}.yml`)
  writeFileSync(file, ['- name: dsh-mcp', '  config:', ...lines.map((line) => `    ${line}`), ''].join('\n'))
  return file
}

describe('roots are off unless the row asks', () => {
  it('a row without roots does not declare the capability: the server cannot ask for them', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow())
    const result = await rig.call('mcp__fixture__roots')
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toMatch(/roots/i)
  })

  it('a row with roots: true answers with the workspace', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ roots: true }))
    expect(JSON.parse(await rig.text('mcp__fixture__roots')).roots).toEqual([{ uri: pathToFileURL(process.cwd()).href, name: expect.any(String) }])
  })
})

describe('server-filesystem keeps its allow-list unless roots are asked for', () => {
  const allowed = join(scratch, 'allowed')
  const outside = join(scratch, 'outside')
  mkdirSync(allowed, { recursive: true })
  mkdirSync(outside, { recursive: true })
  const secret = join(outside, 'secret.txt')
  writeFileSync(secret, 'outside the allow-list\n')
  const readOutside = (file: string) => dsh(['call', 'mcp__fs__read_text_file', JSON.stringify({ path: secret }), '--json', '--preset', 'base', '--config', file, '--cwd', '/'])
  const row = ['serverName: fs', 'transport: stdio', 'command: mcp-server-filesystem', `args: [${JSON.stringify(allowed)}]`]

  it('roots unset: reading outside its args is refused, even with --cwd /', async () => {
    const run = await readOutside(overlay('fs', row))
    expect(run.code, run.stderr).toBe(1)
    expect(run.stdout).not.toContain('outside the allow-list')
    expect(run.stdout).toMatch(/access denied|outside allowed/i)
  })

  it('roots: true: the workspace (--cwd /) becomes its allow-list, as the row asked', async () => {
    const file = overlay('fs-roots', [...row, 'roots: true'])
    // server-filesystem applies the roots a moment after initialize: a call that overtakes it is refused.
    let run = await readOutside(file)
    for (let attempt = 1; attempt < 3 && run.code !== 0; attempt++) run = await readOutside(file)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('outside the allow-list')
  })
})

describe('roots: true', () => {
  it('server-everything sees the host workspace, then the session workspaces as sessions come and go', async () => {
    const rig = await startRig()
    await rig.add(everything)
    expect(await rig.text('mcp__everything__get-roots-list')).toContain(`URI: ${pathToFileURL(process.cwd()).href}`)
    const session = rig.app.sessions.create({ cwd: scratch })
    await eventually(async () => {
      const text = await rig.text('mcp__everything__get-roots-list')
      expect(text).toContain(`URI: ${pathToFileURL(scratch).href}`)
      expect(text).toContain('(1 total)')
    })
    rig.app.sessions.end(session)
    await eventually(async () => expect(await rig.text('mcp__everything__get-roots-list')).toContain(`URI: ${pathToFileURL(process.cwd()).href}`))
  })

  it('dsh call: the root is --cwd', async () => {
    const file = overlay('everything', ['serverName: everything', 'transport: stdio', 'command: mcp-server-everything', 'args: [stdio]', 'roots: true'])
    const run = await dsh(['call', 'mcp__everything__get-roots-list', '--preset', 'base', '--config', file, '--cwd', scratch])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(`URI: ${pathToFileURL(scratch).href}`)
  })
})

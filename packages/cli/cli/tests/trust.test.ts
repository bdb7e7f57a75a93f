import { PassThrough } from 'node:stream'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { TrustStore, trustStoreFile } from 'dsh-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { terminalTrustPrompt } from '../src/trust-prompt.ts'
import { dsh, dshIn, json, killRunning, oneStderrLine, projectMcpJsonHome, removeTempDirs, ROOT, serveIn, tempDir } from './helpers.ts'
import { fixturePath } from '../../../../test-support/fixture-path.ts'
import { processesLeftIn } from '../../../../test-support/processes.ts'
import { trustIn } from '../../../../test-support/trust.ts'

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

describe('dsh trust', () => {
  it('records, lists and revokes a canonical directory in $DSH_HOME/trusted.json', async () => {
    const home = await tempDir()
    const work = await tempDir()
    await mkdir(join(work, 'sub'))
    const env = { DSH_HOME: home }
    // In the worker (the same parsing, store and output; no process is under test here): six real
    // `dsh trust` processes run in the hostile-home case below.
    const trusted = await dshIn(['trust', join(work, 'sub', '..')], { env })
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(trusted.stdout).toContain(`trusted ${work}:`)
    expect((await stat(trustStoreFile(env))).mode & 0o777).toBe(0o600)
    expect((await stat(home)).mode & 0o777).toBe(0o700)
    // Default: the --cwd, else the current directory.
    const here = await dshIn(['trust', '--revoke', '--json'], { env, cwd: join(work, 'sub') })
    expect(json(here)).toMatchObject({ directory: join(work, 'sub'), trusted: false })
    const listed = json(await dshIn(['trust', '--list', '--json'], { env }))
    expect(listed.file).toBe(trustStoreFile(env))
    expect(listed.directories.map((entry: { directory: string; trusted: boolean }) => [entry.directory, entry.trusted])).toEqual([
      [work, true],
      [join(work, 'sub'), false],
    ])
    const text = await dshIn(['trust', '--list'], { env })
    expect(text.stdout).toMatch(new RegExp(`^trusted +${work} `, 'm'))
  })

  it('refuses a directory that does not exist and a second directory, with exit 2', async () => {
    const home = await tempDir()
    const missing = await dshIn(['trust', join(home, 'nope')], { env: { DSH_HOME: home } })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('does not exist')
    const two = await dshIn(['trust', home, home], { env: { DSH_HOME: home } })
    expect(two.code).toBe(2)
    // `dsh trust "$REPO"` with REPO unset: an empty name is no directory, not the current one (in a
    // home directory, that would trust every repository below it).
    const work = await tempDir()
    for (const argv of [['trust', ''], ['trust', '--cwd', '', '--revoke'], ['trust', '--cwd=', '']]) {
      const empty = await dshIn(argv, { env: { DSH_HOME: home }, cwd: work })
      expect(empty.code, argv.join(' ')).toBe(2)
      expect(empty.stderr).toContain('an empty directory name')
    }
    expect(json(await dshIn(['trust', '--list', '--json'], { env: { DSH_HOME: home } })).directories).toEqual([])
  })
})

// A long-lived host (`dsh serve`) kept a workspace's .mcp.json servers connected after `dsh trust
// --revoke` in another shell, until it restarted.
describe('a revocation while dsh serve runs', () => {
  it("disconnects the workspace's .mcp.json servers: their tools answer MCP_UNTRUSTED saying it was revoked, their process is gone", async () => {
    const { dir, home, project } = await projectMcpJsonHome()
    const server = fixturePath(join(ROOT, 'packages', 'mcp', 'mcp', 'tests', 'fixtures', 'server.mjs'))
    await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { alpha: { command: process.execPath, args: [server] } } }))
    await trustIn(home, project)
    const overlay = join(dir, 'overlay.yml')
    await writeFile(overlay, '- id: trust\n  config:\n    watchIntervalMs: 50\n')
    const served = serveIn(['--preset', 'base', '--config', overlay, '--cwd', project], { DSH_HOME: home })
    const client = new Client({ name: 'dsh-trust-revoke-mcp', version: '0' })
    await client.connect(served.transport)
    const echo = async () => (await client.callTool({ name: 'mcp__alpha__echo', arguments: { message: 'hi' } }, undefined, { timeout: 120_000 })) as { isError?: boolean; content: { text: string }[] }
    try {
      expect((await echo()).isError ?? false).toBe(false)
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('mcp__alpha__echo')
      // Another process revokes it (what `dsh trust --revoke` writes).
      await new TrustStore(trustStoreFile({ DSH_HOME: home })).record(project, false)
      await vi.waitFor(() => expect(served.stderr()).toContain(`trust in ${project} was revoked; its servers are disconnected`), { timeout: 10_000 })
      const refused = await echo()
      expect(refused.isError).toBe(true)
      expect(refused.content[0]!.text).toContain(`MCP server alpha was disconnected: trust in ${project}, which ${join(project, '.mcp.json')} belongs to, was revoked`)
      expect(refused.content[0]!.text).toContain('[MCP_UNTRUSTED]')
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('mcp__alpha__echo')
      expect(await processesLeftIn(project)).toEqual([])
    } finally {
      await client.close()
    }
    expect(await served.exited).toBe(0)
  })
})

describe('dsh trust against a hostile home', () => {
  it('six dsh trust processes at once on one trusted.json keep all six decisions', async () => {
    // Each read the file, added its directory and renamed its copy over it: the last rename won
    // (8 processes kept 4 decisions). Now each holds trusted.json.lock for its read and rewrite.
    const home = await tempDir()
    const works = await Promise.all(Array.from({ length: 6 }, () => tempDir()))
    const runs = await Promise.all(works.map((work) => dsh(['trust', work], { env: { DSH_HOME: home } })))
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    // What the six left, read in the worker.
    const listed = json(await dshIn(['trust', '--list', '--json'], { env: { DSH_HOME: home } }))
    expect(listed.directories.map((entry: { directory: string }) => entry.directory).sort()).toEqual([...works].sort())
  })

  it('a DSH_HOME that cannot be made is one line with TRUST_STORE_WRITE_FAILED (exit 2)', async () => {
    const base = await tempDir()
    await writeFile(join(base, 'file'), '')
    const run = await dshIn(['trust', base], { env: { DSH_HOME: join(base, 'file', 'home') } })
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: .*trusted\.json cannot be written: ENOTDIR.* \[TRUST_STORE_WRITE_FAILED\]$/)
  })
})

describe('the terminal trust prompt', () => {
  function terminal(answer: string | undefined) {
    const stdin = Object.assign(new PassThrough(), { isTTY: true })
    const stderr = Object.assign(new PassThrough(), { isTTY: true })
    let said = ''
    stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString()
      if (answer !== undefined) stdin.write(`${answer}\n`)
      else stdin.end()
    })
    return { io: { stdin, stderr }, said: () => said }
  }

  it('never exists without a terminal', () => {
    expect(terminalTrustPrompt({ stdin: new PassThrough(), stderr: Object.assign(new PassThrough(), { isTTY: true }) })).toBeUndefined()
    expect(terminalTrustPrompt({ stdin: Object.assign(new PassThrough(), { isTTY: true }), stderr: new PassThrough() })).toBeUndefined()
  })

  it('asks y/N once, records the answer, and takes anything but yes as no', async () => {
    const home = await tempDir()
    const store = new TrustStore(join(home, 'trusted.json'))
    const yes = terminal('y')
    const hook = terminalTrustPrompt(yes.io, store)!
    const signal = new AbortController().signal
    const [first, second] = await Promise.all([hook({ directory: '/w/a', brings: 'its skills', recorded: undefined, signal }), hook({ directory: '/w/a', brings: 'its TypeScript', recorded: undefined, signal })])
    expect([first, second]).toEqual([true, true])
    expect(yes.said().match(/\[y\/N\]/g)).toHaveLength(1)
    expect(yes.said()).toContain('/w/a is not trusted, and it brings its skills')
    expect(JSON.parse(await readFile(store.file, 'utf8')).directories['/w/a'].trusted).toBe(true)
    // A recorded decision is not asked about again.
    expect(await hook({ directory: '/w/b', brings: 'x', recorded: false, signal })).toBeUndefined()
    const enter = terminal('')
    expect(await terminalTrustPrompt(enter.io, store)!({ directory: '/w/c', brings: 'x', recorded: undefined, signal })).toBe(false)
    const closed = terminal(undefined)
    expect(await terminalTrustPrompt(closed.io, store)!({ directory: '/w/d', brings: 'x', recorded: undefined, signal })).toBe(false)
    expect((await store.lookup('/w/c'))?.trusted).toBe(false)
  })

  // What the question names comes from the repository: the version in its node_modules/typescript/package.json,
  // its directory's name. Acting on the terminal, it could rewrite the very question being answered.
  it("shows the repository's control characters as ?, so they cannot rewrite the question on the terminal", async () => {
    const home = await tempDir()
    const store = new TrustStore(join(home, 'trusted.json'))
    const asked = terminal('n')
    const version = '5.9.3\u001b[1A\u001b[2K\rdsh: your own TypeScript, no repository code. Use it?\u001b]52;c;ZXZpbA==\u0007\n'
    const signal = new AbortController().signal
    expect(await terminalTrustPrompt(asked.io, store)!({ directory: '/w/e\u001b[8m', brings: `its own typescript ${version} (/w/e/node_modules/typescript)`, recorded: undefined, signal })).toBe(false)
    expect(asked.said()).not.toMatch(/[\u001b\u0007\u009b]/)
    expect(asked.said()).toContain('/w/e?[8m is not trusted, and it brings its own typescript 5.9.3?[1A?[2K?dsh: your own TypeScript')
    // One line for the question and one for the answer prompt: nothing of the repository's starts a line.
    expect(asked.said().split('\n')).toHaveLength(2)
  })
})

// Issue 30 item 4: `dsh serve` offers the composition's skills over SEP-2640 (skills/list,
// skills/get, skill:// resources with SHA-256 digests and sizes, resources/directory/read), and
// dsh's own client reads the examples/skills tree back through it as skills, bodies verbatim.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cp, mkdir, open, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { skillEntry } from '@modelcontextprotocol/server/ext/skills'
import { digestOf } from '../src/serve-skills.ts'
import { BIN, childEnv, descendants, dsh, json, killRunning, removeTempDirs, ROOT, serveIn, tempDir } from './helpers.ts'
import { trustIn } from '../../../../test-support/trust.ts'

const Any = z.looseObject({})
const clients: Client[] = []
let project = ''
let home = ''
let dshHome = ''

beforeEach(async () => {
  // The example as its README runs it: a copy outside any repository, HOME pointing at its home.
  const copy = await tempDir()
  await cp(join(ROOT, 'examples', 'skills'), copy, { recursive: true })
  project = join(copy, 'project')
  home = join(copy, 'home')
  await mkdir(join(project, '.git'))
  dshHome = await trustIn(join(home, '.dsh-home'), project)
})

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

const serveArgs = () => [BIN, 'serve', '--preset', 'base', '--cwd', project]
const serveEnv = () => ({ HOME: home, DSH_HOME: dshHome })

/** A client of `dsh serve` in this worker (serveIn), with the example's HOME and DSH_HOME. */
async function connect(...extra: string[]): Promise<Client> {
  const client = new Client({ name: 'dsh-serve-skills-test', version: '0' })
  await client.connect(serveIn([...serveArgs().slice(2), ...extra], serveEnv()).transport)
  clients.push(client)
  return client
}

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

describe('dsh serve: skills over SEP-2640', () => {
  it('declares the extension and lists each skill directory with digests and sizes of its files', async () => {
    const client = await connect()
    expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/skills': { directoryRead: true } })
    const { skills } = (await client.request({ method: 'skills/list', params: {} }, Any)) as { skills: { uri: string; frontmatter: Record<string, unknown>; resources: { uri: string; digest: string; size: number }[] }[] }
    expect(skills.map((skill) => skill.uri)).toEqual(['skill://commit-message/SKILL.md', 'skill://deploy/SKILL.md', 'skill://release-notes/SKILL.md'])
    const notes = skills.find((skill) => skill.uri === 'skill://release-notes/SKILL.md')!
    // The project's release-notes (it shadows the home one), every file with its digest and size.
    const dir = join(project, '.dsh', 'skills', 'release-notes')
    const manifest = await readFile(join(dir, 'SKILL.md'))
    const template = await readFile(join(dir, 'templates', 'changelog.md'))
    expect(notes.resources).toEqual([
      { uri: 'skill://release-notes/SKILL.md', digest: sha256(manifest), size: manifest.length },
      { uri: 'skill://release-notes/templates/changelog.md', digest: sha256(template), size: template.length },
    ])
    expect(notes.frontmatter.name).toBe('release-notes')

    const read = (await client.request({ method: 'resources/read', params: { uri: 'skill://release-notes/SKILL.md' } }, Any)) as { contents: { text: string; mimeType: string }[] }
    expect(read.contents[0]).toMatchObject({ uri: 'skill://release-notes/SKILL.md', mimeType: 'text/markdown', text: manifest.toString('utf8') })
    const got = (await client.request({ method: 'skills/get', params: { uri: 'skill://deploy/SKILL.md' } }, Any)) as { skill: { uri: string } }
    expect(got.skill.uri).toBe('skill://deploy/SKILL.md')
    await expect(client.request({ method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }, Any)).rejects.toMatchObject({ code: -32602 })
    await expect(client.request({ method: 'resources/read', params: { uri: 'skill://release-notes/secret.txt' } }, Any)).rejects.toMatchObject({ code: -32602 })

    const root = (await client.request({ method: 'resources/directory/read', params: { uri: 'skill://deploy' } }, Any)) as { resources: { uri: string; mimeType: string }[] }
    expect(root.resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
      { uri: 'skill://deploy/SKILL.md', mimeType: 'text/markdown' },
      { uri: 'skill://deploy/scripts', mimeType: 'inode/directory' },
    ])
    const scripts = (await client.request({ method: 'resources/directory/read', params: { uri: 'skill://deploy/scripts' } }, Any)) as { resources: { uri: string }[] }
    expect(scripts.resources.map((resource) => resource.uri)).toEqual(['skill://deploy/scripts/deploy.sh'])
    await expect(client.request({ method: 'resources/directory/read', params: { uri: 'skill://deploy/SKILL.md' } }, Any)).rejects.toMatchObject({ code: -32602 })
  })

  it('a file beside a SKILL.md edited, added or removed while serving: skills/get lists it as it is now, digests matching the bytes resources/read serves (the listing kept the old digest for ever)', async () => {
    const client = await connect()
    const dir = join(project, '.dsh', 'skills', 'release-notes')
    type Entry = { skill: { resources: { uri: string; digest: string; size: number }[] } }
    const get = async () => ((await client.request({ method: 'skills/get', params: { uri: 'skill://release-notes/SKILL.md' } }, Any)) as Entry).skill.resources
    const read = async (uri: string) => ((await client.request({ method: 'resources/read', params: { uri } }, Any)) as { contents: { text: string }[] }).contents[0]!.text
    expect((await get()).map((file) => file.uri)).toEqual(['skill://release-notes/SKILL.md', 'skill://release-notes/templates/changelog.md'])

    // No SKILL.md changes, so the registry (which watches SKILL.md files) says nothing.
    const edited = Buffer.from('## Changed after the listing\n')
    await writeFile(join(dir, 'templates', 'changelog.md'), edited)
    await writeFile(join(dir, 'templates', 'added.md'), 'added\n')
    expect(await get()).toEqual([
      { uri: 'skill://release-notes/SKILL.md', digest: sha256(await readFile(join(dir, 'SKILL.md'))), size: (await readFile(join(dir, 'SKILL.md'))).length },
      { uri: 'skill://release-notes/templates/added.md', digest: sha256(Buffer.from('added\n')), size: 6 },
      { uri: 'skill://release-notes/templates/changelog.md', digest: sha256(edited), size: edited.length },
    ])
    expect(await read('skill://release-notes/templates/changelog.md')).toBe(edited.toString())
    expect(await read('skill://release-notes/templates/added.md')).toBe('added\n')

    // Read without a skills/get first: the bytes served are today's, and the listing follows them.
    const again = Buffer.from('## Changed twice\n')
    await writeFile(join(dir, 'templates', 'changelog.md'), again)
    expect(await read('skill://release-notes/templates/changelog.md')).toBe(again.toString())
    const { skills } = (await client.request({ method: 'skills/list', params: {} }, Any)) as { skills: Entry['skill'][] }
    expect(skills.flatMap((skill) => skill.resources).find((file) => file.uri.endsWith('changelog.md'))).toEqual({ uri: 'skill://release-notes/templates/changelog.md', digest: sha256(again), size: again.length })

    // A removed file leaves the entry instead of being listed with a digest nothing can match.
    await rm(join(dir, 'templates', 'added.md'))
    expect((await get()).map((file) => file.uri)).toEqual(['skill://release-notes/SKILL.md', 'skill://release-notes/templates/changelog.md'])
    await expect(client.request({ method: 'resources/read', params: { uri: 'skill://release-notes/templates/added.md' } }, Any)).rejects.toMatchObject({ code: -32602 })

    // A name with a space, a letter outside ASCII, % or #: listed percent-encoded (the SDK's skillEntry),
    // and read by that URI (the read looked the URI up as a path: every such file was listed and unreadable).
    await writeFile(join(dir, 'templates', 'my notes ü 100% #1.md'), 'spaced\n')
    const odd = 'skill://release-notes/templates/my%20notes%20%C3%BC%20100%25%20%231.md'
    expect((await get()).map((file) => file.uri)).toContain(odd)
    expect(await read(odd)).toBe('spaced\n')
    const listing = (await client.request({ method: 'resources/directory/read', params: { uri: 'skill://release-notes/templates' } }, Any)) as { resources: { uri: string; name: string }[] }
    expect(listing.resources).toContainEqual(expect.objectContaining({ uri: odd, name: 'my notes ü 100% #1.md' }))
  })

  it('prompts/get with an argument the prompt does not declare: -32602 naming it and the one it has (the text was dropped and the skill served without it)', async () => {
    const client = await connect()
    const get = (args: Record<string, string>) => client.request({ method: 'prompts/get', params: { name: 'release-notes', arguments: args } }, Any)
    await expect(get({ input: 'for 2.0' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('prompt "release-notes" has one argument, "arguments" (the text that follows /name); it was sent "input"') })
    await expect(get({ arguments: 'for 2.0', a: '', b: '', c: '', d: '', e: '', f: '' })).rejects.toMatchObject({ message: expect.stringMatching(/it was sent "a", "b", "c", "d", "e" and 1 more$/) })
    const served = (await get({ arguments: 'for 2.0' })) as { messages: { content: { text: string } }[] }
    expect(served.messages[0]!.content.text).toMatch(/\n\nfor 2\.0$/)
    expect(await get({})).toMatchObject({ messages: [{ role: 'user' }] })
  })

  it('a skill left out of SEP-2640 is logged once while its reason stays the same, not again at each rebuild of the catalog after another skill changes', async () => {
    const linked = join(project, '.dsh', 'skills', 'linked')
    await mkdir(linked)
    await writeFile(join(linked, 'SKILL.md'), '---\nname: linked\ndescription: Holds a symlink.\n---\nBody.\n')
    await symlink(join(project, 'CHANGES.md'), join(linked, 'changes.md'))
    const served = serveIn([...serveArgs().slice(2)], serveEnv())
    const client = new Client({ name: 'dsh-serve-skills-test', version: '0' })
    await client.connect(served.transport)
    clients.push(client)
    const list = async () => ((await client.request({ method: 'skills/list', params: {} }, Any)) as { skills: { uri: string }[] }).skills.map((skill) => skill.uri)
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(z.object({ method: z.literal('notifications/prompts/list_changed') }).loose(), () => resolve()))
    expect(await list()).not.toContain('skill://linked/SKILL.md')
    // Another skill added: the registry changes and the catalog is built again.
    await writeFile(join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md'), (await readFile(join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md'), 'utf8')) + '\nEdited.\n')
    await changed
    expect(await list()).not.toContain('skill://linked/SKILL.md')
    const lines = served.stderr().split('\n').filter((line) => line.includes('skill "linked" is not served over MCP'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('changes.md is a symlink or a special file')
  })

  it('a 3 GiB file in a skill directory, there from the start or grown after the listing: refused from its size, unread, as over the SEP-2640 limits (it was read first: a RangeError past 2 GiB, the whole file in memory below); a file whose content as sent is over --max-read-bytes (8 MiB) is refused, coded, and the connection serves on (it was sent whole; over a stdio pipe the MCP SDK clients close the connection on a message over 10 MiB)', async () => {
    const dir = join(project, '.dsh', 'skills', 'release-notes')
    // Within SEP-2640's 16 MiB for the skill, over 8 MiB as sent: 9 MiB of text, and 5 MiB of quotes (each sent as \").
    await writeFile(join(dir, 'templates', 'nine.md'), 'a line.\n'.repeat((9 * 1024 * 1024) / 8))
    await writeFile(join(dir, 'templates', 'quotes.md'), '"'.repeat(5 * 1024 * 1024))
    // Sparse files: no disk is used.
    const big = join(project, '.agents', 'skills', 'deploy', 'data.bin')
    const handle = await open(big, 'w')
    await handle.truncate(3 * 1024 ** 3)
    await handle.close()
    const served = serveIn([...serveArgs().slice(2)], serveEnv())
    const client = new Client({ name: 'dsh-serve-skills-test', version: '0' })
    await client.connect(served.transport)
    clients.push(client)
    const { skills } = (await client.request({ method: 'skills/list', params: {} }, Any)) as { skills: { uri: string }[] }
    expect(skills.map((skill) => skill.uri)).toEqual(['skill://commit-message/SKILL.md', 'skill://release-notes/SKILL.md'])
    expect(served.stderr()).toContain(`skill "deploy" is not served over MCP: ${join(project, '.agents', 'skills', 'deploy')} is over the SEP-2640 limits (512 files, 16777216 bytes)`)

    const read = (uri: string) => client.request({ method: 'resources/read', params: { uri } }, Any)
    await expect(read('skill://release-notes/templates/nine.md')).rejects.toMatchObject({
      code: -32602,
      data: { code: 'SERVE_READ_TOO_LARGE', limit: 8388608 },
      message: expect.stringContaining('"skill://release-notes/templates/nine.md" is not sent: its content would be at least 9437184 bytes as sent, over dsh serve\'s --max-read-bytes 8388608'),
    })
    await expect(read('skill://release-notes/templates/quotes.md')).rejects.toMatchObject({ code: -32602, data: { code: 'SERVE_READ_TOO_LARGE' }, message: expect.stringContaining('its content would be 10485762 bytes as sent') })
    expect(await read('skill://release-notes/templates/changelog.md')).toMatchObject({ contents: [{ uri: 'skill://release-notes/templates/changelog.md' }] })

    const grown = await open(join(dir, 'templates', 'changelog.md'), 'r+')
    await grown.truncate(3 * 1024 ** 3)
    await grown.close()
    await expect(client.request({ method: 'resources/read', params: { uri: 'skill://release-notes/templates/changelog.md' } }, Any)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('"skill://release-notes/templates/changelog.md" cannot be read any more: it is 3221225472 bytes now, over the SEP-2640 limit of 16777216 bytes for a whole skill'),
    })
  })

  it("is read back by dsh's own client as skills, bodies verbatim", async () => {
    const outer = await tempDir()
    const row = { serverName: 'served', transport: 'stdio', command: process.execPath, args: serveArgs(), env: serveEnv(), startupTimeoutMs: 60_000 }
    await writeFile(join(outer, 'row.yml'), `- id: served\n  name: dsh-mcp\n  config: ${JSON.stringify(row)}\n`)
    const env = { HOME: await tempDir(), DSH_HOME: outer }
    const loaded = json<{ value: { name: string; content: string; resourceBase: { description: string } } }>(
      await dsh(['call', 'skill', JSON.stringify({ name: 'served-release-notes' }), '--json', '--preset', 'base', '--config', join(outer, 'row.yml')], { env, cwd: outer }),
    )
    const file = await readFile(join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md'), 'utf8')
    const body = file.slice(file.indexOf('\n---', 3) + '\n---\n'.length)
    expect(loaded.value.name).toBe('served-release-notes')
    expect(loaded.value.content).toBe(body)
    expect(loaded.value.resourceBase.description).toContain('served by the MCP server "served"')
    const template = json<{ value: { text: string } }>(
      await dsh(['call', 'mcp__served__read_skill_file', JSON.stringify({ uri: 'skill://release-notes/templates/changelog.md' }), '--json', '--yes', '--preset', 'base', '--config', join(outer, 'row.yml')], { env, cwd: outer }),
    )
    expect(template.value.text).toBe(await readFile(join(project, '.dsh', 'skills', 'release-notes', 'templates', 'changelog.md'), 'utf8'))
  })

  it('prompts/get of a skill whose file broke after the listing: -32602 with the reason and code on the first load too, as on later ones', async () => {
    const root = join(project, '.dsh', 'skills')
    const file = (name: string) => join(root, name, 'SKILL.md')
    for (const name of ['loop', 'fifo']) {
      await mkdir(join(root, name), { recursive: true })
      await writeFile(file(name), `---\nname: ${name}\ndescription: ${name}\n---\nBody.\n`)
    }
    // Unwatched and not looked at again: the listing stays as it was until a load finds the file broken.
    const overlay = join(await tempDir(), 'overlay.yml')
    await writeFile(overlay, '- id: skill-fs\n  config: { watch: false, rescanMs: 600000 }\n')
    const client = await connect('--config', overlay)
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['loop', 'fifo']))
    const breaks = [
      ['loop', () => symlink('SKILL.md', file('loop')), 'a symbolic link loop', 'FS_IO_ERROR'],
      ['fifo', () => execFileSync('mkfifo', [file('fifo')]), 'not a regular file', 'FS_NOT_REGULAR_FILE'],
    ] as const
    for (const [name, replace, reason, code] of breaks) {
      // Each broken after the last one's load had the listing look again, so it is still listed.
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain(name)
      await rm(file(name))
      await replace()
      await expect(client.getPrompt({ name }), name).rejects.toMatchObject({ code: -32602, message: `MCP error -32602: skill "${name}" cannot be loaded: skill file ${file(name)}: ${reason} (${code})` })
      // The load had the listing look again: the skill has left the catalog.
      await expect(client.getPrompt({ name }), name).rejects.toMatchObject({ code: -32602, message: `MCP error -32602: no user-invocable skill named "${name}"` })
    }
    const left = (await client.listPrompts()).prompts.map((prompt) => prompt.name)
    expect(left).not.toContain('loop')
    expect(left).not.toContain('fifo')
  })

  it('prompts/get when the file system fails a right request (EMFILE: dsh serve out of file descriptors): -32603 with the reason and code, the skill stays listed and loads once it recovers', async () => {
    // A real fault in a real `dsh serve` process: its open-files limit lowered (prlimit) to its
    // lowest free descriptor, so the load's open() fails with EMFILE. Before, this answered -32602
    // (invalid params), telling the client its request was wrong.
    const overlay = join(await tempDir(), 'overlay.yml')
    await writeFile(overlay, '- id: skill-fs\n  config: { watch: false, rescanMs: 600000 }\n')
    const transport = new StdioClientTransport({ command: process.execPath, args: [...serveArgs(), '--config', overlay], cwd: ROOT, stderr: 'pipe', env: childEnv(serveEnv()) })
    const client = new Client({ name: 'dsh-serve-skills-test', version: '0' })
    await client.connect(transport)
    clients.push(client)
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('commit-message')
    const pid = transport.pid!
    const used = new Set((await readdir(`/proc/${pid}/fd`)).map(Number))
    let lowestFree = 0
    while (used.has(lowestFree)) lowestFree++
    const hard = execFileSync('prlimit', ['--pid', String(pid), '--nofile', '--output', 'HARD', '--noheadings']).toString().trim()
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${lowestFree}:${hard}`])
    try {
      const refused = client.getPrompt({ name: 'commit-message' })
      await expect(refused).rejects.toMatchObject({ code: -32603, data: { code: 'FS_IO_ERROR' } })
      await expect(refused).rejects.toThrow(/^MCP error -32603: skill "commit-message" could not be loaded: .*EMFILE: too many open files.* \(FS_IO_ERROR\)$/)
    } finally {
      execFileSync('prlimit', ['--pid', String(pid), `--nofile=${hard}:${hard}`])
    }
    // Not the skill's fault: it is still there, and loads.
    expect((await client.getPrompt({ name: 'commit-message' })).messages).toHaveLength(1)
  })

  it('prompts/get of a skill imported from another MCP server: content that fails its listing\'s digest, or the server answering -32602, is -32602 with its reason (was -32603); the server failing is -32603 with its code', async () => {
    const outer = await tempDir()
    // The inner server's listing stays as it was built (unwatched, not rescanned): its files change under it.
    const innerOverlay = join(outer, 'inner.yml')
    await writeFile(innerOverlay, '- id: skill-fs\n  config: { watch: false, rescanMs: 600000 }\n')
    // toolCallTimeoutMs bounds each read of a skill from the inner server: the stopped server below
    // waits all of it out (it was 5 s); a read from the warm inner server takes milliseconds.
    const row = { serverName: 'served', transport: 'stdio', command: process.execPath, args: [...serveArgs(), '--config', innerOverlay], env: serveEnv(), startupTimeoutMs: 60_000, toolCallTimeoutMs: 2_000 }
    await writeFile(join(outer, 'row.yml'), `- id: served\n  name: dsh-mcp\n  config: ${JSON.stringify(row)}\n`)
    const client = new Client({ name: 'dsh-serve-skills-test', version: '0' })
    await client.connect(serveIn(['serve', '--preset', 'base', '--cwd', outer, '--config', join(outer, 'row.yml')].slice(1), { HOME: await tempDir(), DSH_HOME: outer }).transport)
    clients.push(client)
    const name = 'served-release-notes'
    const prompts = async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name)
    for (let tries = 0; !(await prompts()).includes(name) && tries < 600; tries++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await prompts()).toContain(name)
    expect((await client.getPrompt({ name })).messages).toHaveLength(1)
    const file = join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md')
    const text = await readFile(file, 'utf8')

    // The inner server not answering (stopped, SIGSTOP): its failure, not the request's: -32603, with dsh-mcp's code,
    // a timeout (the connection is still there), not a lost connection.
    const inner = descendants(process.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(innerOverlay))!
    process.kill(inner, 'SIGSTOP')
    try {
      const stalled = client.getPrompt({ name })
      await expect(stalled).rejects.toMatchObject({ code: -32603, data: { code: 'MCP_TIMEOUT' } })
      await expect(stalled).rejects.toThrow(/^MCP error -32603: skill "served-release-notes" could not be loaded: reading skill:\/\/release-notes\/SKILL\.md: MCP server served sent no answer within \d+ ms \(MCP_TIMEOUT\)$/)
    } finally {
      process.kill(inner, 'SIGCONT')
    }
    expect((await client.getPrompt({ name })).messages).toHaveLength(1)

    // The file gone: the inner server answers resources/read with -32602, passed on as the client error it is.
    await rm(file)
    const gone = client.getPrompt({ name })
    await expect(gone).rejects.toMatchObject({ code: -32602, data: { code: 'MCP_SERVER_ERROR', rpcCode: -32602 } })
    await expect(gone).rejects.toThrow(/^MCP error -32602: skill "served-release-notes" cannot be loaded: reading skill:\/\/release-notes\/SKILL\.md: MCP server served answered with error -32602: "skill:\/\/release-notes\/SKILL\.md" cannot be read any more: .* \(MCP_SERVER_ERROR\)$/)

    // Back, but not what the listing's digest says: the content is refused, -32602 with why.
    await writeFile(file, `${text}\nChanged.\n`)
    const changed = client.getPrompt({ name })
    await expect(changed).rejects.toMatchObject({ code: -32602, data: { code: 'MCP_SKILL_SIZE_MISMATCH' } })
    await expect(changed).rejects.toThrow(/^MCP error -32602: skill "served-release-notes" cannot be loaded: reading skill:\/\/release-notes\/SKILL\.md from MCP server served: .* \(MCP_SKILL_SIZE_MISMATCH\)$/)
  })
})

describe('the digest resources/read checks a served file against', () => {
  it("is the SDK skillEntry's digest of the same bytes, text and binary, across sizes (now WebCrypto on the threadpool, not createHash on the event loop)", async () => {
    const large = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 131) & 255)
    const files = { 'SKILL.md': '---\nname: d\ndescription: Digests.\n---\nBody.\n', 'empty.txt': new Uint8Array(0), 'large.bin': large, 'é.md': 'café ✓\n' }
    const entry = await skillEntry('d', files)
    const listed = new Map((entry.resources as { uri: string; digest: string }[]).map((file) => [file.uri, file.digest]))
    for (const [path, content] of Object.entries(files)) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
      const uri = path === 'SKILL.md' ? entry.uri : `skill://d/${encodeURI(path)}`
      const expected = listed.get(uri) ?? (path === 'SKILL.md' ? `sha256:${createHash('sha256').update(bytes).digest('hex')}` : undefined)
      expect(await digestOf(bytes), path).toBe(expected)
    }
  })
})

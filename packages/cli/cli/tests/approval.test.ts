// Tools that need approval, through the `dsh` command: `dsh call --yes` (a real process), `dsh tools`,
// and `dsh serve` asking the MCP client through elicitation (or answering TOOL_APPROVAL_REQUIRED when
// it cannot), served in the worker (serveIn).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dsh, dshIn, json, killRunning, oneStderrLine, removeTempDirs, serveIn, tempDir } from './helpers.ts'
import { serveHttp, stopServed } from './serve-http-support.ts'

let dir: string
let preset: string[]
/** The gated tools append each path they were run with here: a refused call leaves no line. */
let ranLog: string

beforeEach(async () => {
  dir = await tempDir()
  ranLog = join(dir, 'ran.log')
  await writeFile(
    join(dir, 'gated.mjs'),
    `import { appendFileSync } from 'node:fs'
export const name = 'gated'
export const inject = ['tools']
export function apply(ctx) {
  const tool = (name, approval) => ({
    name,
    description: 'Removes a file (pretends to).',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    ...(approval ? { approval } : {}),
    execute: async (args) => {
      appendFileSync(${JSON.stringify(ranLog)}, name + ' ' + args.path + '\\n')
      return { removed: args.path }
    },
  })
  ctx.tools.register(tool('remove_file', 'prompt'))
  ctx.tools.register(tool('wipe_disk', 'deny'))
  ctx.tools.register(tool('look', undefined))
}
`,
  )
  await writeFile(join(dir, 'preset.yml'), `${CORE_ROWS}- id: gated\n  name: ./gated.mjs\n`)
  preset = ['--preset', join(dir, 'preset.yml')]
})

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  await stopServed()
  killRunning()
  await removeTempDirs()
})

async function ran(): Promise<string> {
  return existsSync(ranLog) ? readFile(ranLog, 'utf8') : ''
}

describe('dsh call and approval', () => {
  it('a prompt tool without --yes is exit 1 with TOOL_APPROVAL_REQUIRED, and says how to approve', async () => {
    const run = await dsh(['call', 'remove_file', '{"path":"a.txt"}', '--json', ...preset])
    expect(run.code, run.stderr).toBe(1)
    const result = json(run)
    expect(result.error.code).toBe('TOOL_APPROVAL_REQUIRED')
    expect(result.error.message).toContain('dsh call --yes')
    expect(await ran()).toBe('')
    const text = await dsh(['call', 'remove_file', '{"path":"a.txt"}', ...preset])
    expect(text.code).toBe(1)
    expect(text.stdout).toContain('[TOOL_APPROVAL_REQUIRED]')
  })

  it('--yes approves it: exit 0 and the result', async () => {
    const run = await dshIn(['call', 'remove_file', '{"path":"a.txt"}', '--yes', '--json', ...preset])
    expect(run.code, run.stderr).toBe(0)
    expect(json(run)).toMatchObject({ isError: false, value: { removed: 'a.txt' } })
    expect(await ran()).toBe('remove_file a.txt\n')
  })

  it('--yes does not override a deny tool', async () => {
    const run = await dshIn(['call', 'wipe_disk', '{"path":"/"}', '--yes', '--json', ...preset])
    expect(run.code).toBe(1)
    expect(json(run).error.code).toBe('TOOL_DENIED')
    expect(await ran()).toBe('')
  })

  it('--yes belongs to the call command', async () => {
    const run = await dshIn(['tools', '--yes', ...preset])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: --yes belongs to the call command /)
  })

  it('dsh tools shows the approval mode of the tools that do not run at once; --json stays the catalog', async () => {
    const run = await dshIn(['tools', ...preset])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('remove_file\n  Removes a file (pretends to).\n  approval: prompt\n')
    expect(run.stdout).toContain('wipe_disk\n  Removes a file (pretends to).\n  approval: deny\n')
    expect(run.stdout).toContain('look\n  Removes a file (pretends to).\n  parameters:')
    const listed = json<{ tools: Record<string, unknown>[] }>(await dshIn(['tools', '--json', ...preset])).tools
    for (const tool of listed) expect(Object.keys(tool).sort()).toEqual(['description', 'name', 'parameters'])
  })
})

describe('dsh serve and approval', () => {
  async function connect(elicitation: ((request: ElicitRequest) => ElicitResult) | undefined): Promise<Client> {
    const { transport } = serveIn(preset)
    const client = new Client({ name: 'dsh-approval-test', version: '0' }, { capabilities: elicitation ? { elicitation: { form: {} } } : {} })
    if (elicitation) client.setRequestHandler(ElicitRequestSchema, (request) => elicitation(request))
    await client.connect(transport)
    clients.push(client)
    return client
  }

  it('asks a client that declares elicitation, naming the tool and its arguments; accept runs the call', async () => {
    const asked: ElicitRequest[] = []
    const client = await connect((request) => {
      asked.push(request)
      return { action: 'accept', content: { approve: true } }
    })
    const result = await client.callTool({ name: 'remove_file', arguments: { path: 'notes/a.txt' } })
    expect(result.isError ?? false, JSON.stringify(result)).toBe(false)
    // No output schema, so the value travels as text only (issue 16, item 5).
    expect(result.structuredContent).toBeUndefined()
    expect(JSON.stringify(result.content)).toContain('notes/a.txt')
    expect(asked).toHaveLength(1)
    const params = asked[0]!.params as { message: string; requestedSchema: { properties: Record<string, { type: string }> } }
    expect(params.message).toContain('remove_file')
    expect(params.message).toContain('{"path":"notes/a.txt"}')
    expect(params.requestedSchema.properties.approve?.type).toBe('boolean')
    expect(await ran()).toBe('remove_file notes/a.txt\n')
    // Tools that run at once are not asked about.
    expect((await client.callTool({ name: 'look', arguments: { path: 'b' } })).isError ?? false).toBe(false)
    expect(asked).toHaveLength(1)
  })

  it('decline (or accept with approve: false) is TOOL_DENIED with the reason in the text, and nothing ran', async () => {
    const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'accept', content: { approve: false } }]
    const client = await connect(() => answers.shift()!)
    const declined = await client.callTool({ name: 'remove_file', arguments: { path: 'a.txt' } })
    expect(declined.isError).toBe(true)
    expect(JSON.stringify(declined.content)).toContain('remove_file was denied by its approver: the user declined it in the MCP client')
    expect(JSON.stringify(declined.content)).toContain('[TOOL_DENIED]')
    const no = await client.callTool({ name: 'remove_file', arguments: { path: 'a.txt' } })
    expect(JSON.stringify(no.content)).toContain('the user answered no')
    expect(await ran()).toBe('')
  })

  it('a client without elicitation gets TOOL_APPROVAL_REQUIRED as an error result, and what the operator can do', async () => {
    const client = await connect(undefined)
    const result = await client.callTool({ name: 'remove_file', arguments: { path: 'a.txt' } })
    expect(result.isError).toBe(true)
    const text = JSON.stringify(result.content)
    expect(text).toContain('[TOOL_APPROVAL_REQUIRED]')
    expect(text).toContain('did not declare')
    expect(text).toContain('approval mode to \\"auto\\"')
    expect(await ran()).toBe('')
  })
})

describe('dsh serve --http and approval', () => {
  it('never asks, even a client that declares elicitation: TOOL_APPROVAL_REQUIRED says why (HTTP), not that the client lacks elicitation', async () => {
    const served = await serveHttp(preset)
    const asked: ElicitRequest[] = []
    const client = new Client({ name: 'dsh-approval-test', version: '0' }, { capabilities: { elicitation: { form: {} } } })
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request)
      return { action: 'accept', content: { approve: true } }
    })
    await client.connect(new StreamableHTTPClientTransport(served.url))
    clients.push(client)
    const result = await client.callTool({ name: 'remove_file', arguments: { path: 'a.txt' } })
    expect(result.isError).toBe(true)
    const text = JSON.stringify(result.content)
    expect(text).toContain('[TOOL_APPROVAL_REQUIRED]')
    expect(text).not.toContain('did not declare')
    expect(text).toContain('dsh serve --http does not ask')
    expect(text).toContain('approval mode to \\"auto\\"')
    expect(asked).toHaveLength(0)
    expect(await ran()).toBe('')
  })
})

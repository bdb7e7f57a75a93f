import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, CORE_ROWS, descendants, dshIn, ECHO_PRESET, expectGone, json, killRunning, PATIENT_LSP_OVERLAY, removeTempDirs, ROOT, tempDir } from './helpers.ts'
import { trustIn } from '../../../../test-support/trust.ts'
import { RpcCode } from '../src/serve-rpc.ts'

// The cases run concurrently (every describe is `.concurrent`): each starts its own `dsh serve` (or
// uses the shared echo server, which keeps no state between calls), and most of a case is waiting on
// that process. So nothing is torn down per case: the clients, children and temp dirs go at the end.
const clients: Client[] = []
/**
 * The MCP client's own request timeout (60 s by default), raised for every request: a failure guard,
 * never a pass condition. With the cases side by side on a loaded machine, a `dsh serve` start can
 * take longer than a minute.
 */
const PATIENT = { timeout: 240_000 }

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

async function connect(args: readonly string[], env: Record<string, string> = {}): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', ...args], cwd: ROOT, stderr: 'pipe', env: { ...process.env, ...env } as Record<string, string> })
  const client = new Client({ name: 'dsh-serve-test', version: '0' })
  await client.connect(transport, PATIENT)
  clients.push(client)
  return { client, transport }
}

const ECHO = ['--preset', ECHO_PRESET]

let echoServer: Promise<Client> | undefined
/** One `dsh serve` of the echo preset, shared by the cases that only list and call: echo keeps no state between calls. */
function sharedEchoServer(): Promise<Client> {
  echoServer ??= (async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', ...ECHO], cwd: ROOT, stderr: 'pipe', env: { ...process.env } as Record<string, string> })
    const client = new Client({ name: 'dsh-serve-test', version: '0' })
    await client.connect(transport, PATIENT)
    return client
  })()
  return echoServer
}

afterAll(async () => {
  await (await echoServer?.catch(() => undefined))?.close()
})

// In-process `dsh` swaps the worker's stdout, console and environment while it runs: it runs here,
// before the concurrent cases start, not beside them.
let toolsJson: { name: string; description: string; parameters: unknown }[]
beforeAll(async () => {
  toolsJson = json<{ tools: typeof toolsJson }>(await dshIn(['tools', '--json', ...ECHO])).tools
})

describe.concurrent('dsh serve (echo preset)', () => {
  it('lists exactly what dsh tools --json lists', async () => {
    const client = await sharedEchoServer()
    const listed = await client.listTools(undefined, PATIENT)
    expect(listed.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))).toEqual(toolsJson)
  })

  it('calls a tool: the rendering as text, the canonical value as structured content', async () => {
    const client = await sharedEchoServer()
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, PATIENT)
    expect(result.isError ?? false).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(result.structuredContent).toEqual({ text: 'hi', workspace: ROOT })
  })

  it('an error result is isError with the code in the text', async () => {
    const client = await sharedEchoServer()
    const result = await client.callTool({ name: 'echo', arguments: { text: 5 } }, undefined, PATIENT)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('[INVALID_ARGS]')
    const unknown = await client.callTool({ name: 'nope', arguments: {} }, undefined, PATIENT)
    expect(JSON.stringify(unknown.content)).toContain('[UNKNOWN_TOOL]')
  })

  it("the client's cancellation aborts the call inside the host", async () => {
    const { preset, started, aborted } = await waiterPreset()
    const { client } = await connect(['--preset', preset])
    const controller = new AbortController()
    const call = client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, { ...PATIENT, signal: controller.signal })
    await marks(started, 1)
    controller.abort(new Error('user pressed stop'))
    await expect(call).rejects.toThrow(/user pressed stop/)
    await marks(aborted, 1)
  })

  it('SIGTERM during a call: the client gets a coded JSON-RPC error for it, then the server exits 0', async () => {
    const { preset, started } = await waiterPreset()
    const { client, transport } = await connect(['--preset', preset])
    const exited = new Promise<void>((resolve) => (client.onclose = resolve))
    const calls = [client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, PATIENT), client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, PATIENT)]
    await marks(started, 2)
    process.kill(transport.pid!, 'SIGTERM')
    for (const call of calls) await expect(call).rejects.toMatchObject({ code: RpcCode.SHUTTING_DOWN, message: expect.stringMatching(/dsh serve is shutting down/) })
    await exited
  })

  it('keeps stdout for the protocol only', async () => {
    const { client } = await connect([...ECHO, '--verbose'])
    // A verbose host logs plenty; had any of it reached stdout, the client would have failed to parse.
    expect((await client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, PATIENT)).isError ?? false).toBe(false)
  })
})

/** Waits until the file at `path` holds `count` marks (one character each). */
async function marks(path: string, count: number): Promise<void> {
  while ((await readFile(path, 'utf8').catch(() => '')).length < count) await new Promise((resolve) => setTimeout(resolve, 50))
}

/**
 * A preset with a `wait_for_abort` tool that runs until its call is aborted: each call adds a mark
 * to `started` when it starts, and to `aborted` when it is aborted.
 */
async function waiterPreset(): Promise<{ preset: string; started: string; aborted: string }> {
  const dir = await tempDir()
  const started = join(dir, 'started')
  const aborted = join(dir, 'aborted')
  await writeFile(
    join(dir, 'waiter.mjs'),
    `import { appendFileSync } from 'node:fs'
export const name = 'waiter'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({
    name: 'wait_for_abort',
    description: 'Waits until the call is aborted.',
    parameters: { type: 'object' },
    execute: (_args, exec) => new Promise((_resolve, reject) => {
      appendFileSync(${JSON.stringify(started)}, '+')
      exec.signal.addEventListener('abort', () => {
        appendFileSync(${JSON.stringify(aborted)}, '+')
        reject(exec.signal.reason)
      })
    }),
  })
}
`,
  )
  await writeFile(join(dir, 'preset.yml'), `${CORE_ROWS}- id: waiter\n  name: ./waiter.mjs\n`)
  return { preset: join(dir, 'preset.yml'), started, aborted }
}

describe.concurrent('dsh serve lifecycle', () => {
  /** A raw client: one initialize line, then the test decides how the session ends. */
  function start(): { child: ChildProcessWithoutNullStreams; exited: Promise<number | null>; stdout: () => string } {
    const child = spawn(process.execPath, [BIN, 'serve', ...ECHO], { cwd: ROOT })
    const out: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }
    child.stdin.write(`${JSON.stringify(initialize)}\n`)
    return { child, exited: new Promise((resolve) => child.on('close', resolve)), stdout: () => Buffer.concat(out).toString('utf8') }
  }

  async function answered(stdout: () => string): Promise<void> {
    while (!stdout().includes('"id":1')) await new Promise((resolve) => setTimeout(resolve, 50))
  }

  it('exits 0 when stdin closes, and wrote nothing but protocol lines', async () => {
    const server = start()
    await answered(server.stdout)
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
    for (const line of server.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' })
  })

  it('exits 0 on SIGTERM', async () => {
    const server = start()
    await answered(server.stdout)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
  })
})


describe.concurrent('dsh serve (coding preset)', () => {
  it('answers tools/list with lsp, an lsp hover through tools/call, and leaves no language server behind', async () => {
    const project = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')
    // The hover waits for the server to finish loading the project, however long a loaded machine
    // takes (PATIENT_LSP_OVERLAY); the client's request timeout is raised to match, a failure guard only.
    const { client, transport } = await connect(['--preset', 'coding', '--config', PATIENT_LSP_OVERLAY, '--cwd', project])
    expect((await client.listTools(undefined, PATIENT)).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['lsp', 'skill', 'web_fetch', 'web_search']))
    const hover = await client.callTool({ name: 'lsp', arguments: { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 } }, undefined, PATIENT)
    expect(hover.isError ?? false).toBe(false)
    expect(JSON.stringify(hover.content)).toContain('const circle: Circle')
    // Every mounted surface answers through the same session: a guarded fetch and the skill loader.
    const blocked = await client.callTool({ name: 'web_fetch', arguments: { url: 'http://127.0.0.1:9/' } }, undefined, PATIENT)
    expect(blocked.isError).toBe(true)
    expect(JSON.stringify(blocked.content)).toContain('[WEB_BLOCKED_URL]')
    const missing = await client.callTool({ name: 'skill', arguments: { name: 'no-such-skill' } }, undefined, PATIENT)
    expect(JSON.stringify(missing.content)).toContain('[SKILL_UNKNOWN]')
    const servers = descendants(transport.pid!)
    expect(servers.length).toBeGreaterThan(0)
    await client.close()
    await expectGone(transport.pid!, 'dsh serve')
    for (const pid of servers) {
      await expectGone(pid, `language server pid ${pid}`)
    }
  })
})

async function skill(root: string, name: string, description: string, body: string, extra = ''): Promise<void> {
  await mkdir(join(root, name), { recursive: true })
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`)
}

describe.concurrent('dsh serve (skills as prompts)', () => {
  it('lists user-invocable skills as prompts, renders one with the argument text, and announces a new skill file', async () => {
    const home = await tempDir()
    const project = await tempDir()
    await mkdir(join(project, '.git'))
    const skills = join(project, '.dsh', 'skills')
    await skill(skills, 'release', 'Cut a release', 'Run the release steps.')
    await skill(skills, 'model-only', 'Only for the model', 'Hidden from people.', 'user-invocable: false\n')
    // The project's own skills load once its user trusts it.
    const { client } = await connect(['--preset', 'base', '--cwd', project], { HOME: home, DSH_HOME: await trustIn(join(home, '.dsh'), project) })
    expect((await client.listPrompts(undefined, PATIENT)).prompts.map((prompt) => prompt.name)).toEqual(['release'])
    const prompt = await client.getPrompt({ name: 'release', arguments: { arguments: 'version 2.3' } }, PATIENT)
    const text = (prompt.messages[0]!.content as { text: string }).text
    expect(text).toMatch(/^<skill_content name="release">/)
    expect(text).toContain('Run the release steps.')
    expect(text.endsWith('version 2.3')).toBe(true)
    await expect(client.getPrompt({ name: 'model-only' }, PATIENT)).rejects.toThrow(/no user-invocable skill/)

    const changed = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()))
    await skill(skills, 'hotfix', 'Ship a hotfix', 'Hotfix steps.')
    await changed
    expect((await client.listPrompts(undefined, PATIENT)).prompts.map((prompt) => prompt.name)).toEqual(['hotfix', 'release'])
  })

  it('prompts/get gives a 300 KB skill cut at the skills service\'s loadMaxChars with the note the skill tool and /name give', async () => {
    const home = await tempDir()
    const project = await tempDir()
    await mkdir(join(project, '.git'))
    const skills = join(project, '.dsh', 'skills')
    const lines = Array.from({ length: 6000 }, (_, i) => `Step ${i + 1}: do the thing number ${i + 1} with care, then check it twice.`)
    await skill(skills, 'huge', 'A skill with a 300 KB body', lines.join('\n'))
    const file = join(skills, 'huge', 'SKILL.md')
    expect((await readFile(file)).length).toBeGreaterThan(300_000)
    const { client } = await connect(['--preset', 'base', '--cwd', project], { HOME: home, DSH_HOME: await trustIn(join(home, '.dsh'), project) })
    const prompt = await client.getPrompt({ name: 'huge', arguments: { arguments: 'now' } }, PATIENT)
    const text = (prompt.messages[0]!.content as { text: string }).text
    const body = text.slice(text.indexOf('<skill_instructions>\n') + '<skill_instructions>\n'.length, text.indexOf('\n\n[Cut at'))
    const kept = body.split('\n').length
    expect(body.endsWith(`Step ${kept}: do the thing number ${kept} with care, then check it twice.`)).toBe(true)
    expect(text).toContain(
      `\n\n[Cut at loadMaxChars 100000: ${body.length} characters (${kept} of ${lines.length} lines) of the skill's instructions shown; the rest, from line ${kept + 1}, is in ${file}; read it from there when the task needs it.]`,
    )
    expect(text.length).toBeLessThan(100_000 + 1000)
    expect(text.endsWith('now')).toBe(true)
  })
})

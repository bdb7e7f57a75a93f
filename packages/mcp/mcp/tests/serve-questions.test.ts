// `dsh serve` relays a bridged server's question to its own MCP client's elicitation (issue 28
// item 4): an SDK v2 client with an elicitation handler, on either revision, calls through dsh serve
// a tool of a bridged server that asks (a 2025-11-25 server's elicitation/create, a 2026-07-28
// server's input_required); the client's answer reaches the server. To a 2026-07-28 client the
// question travels as an input_required result of its call, which its SDK answers by retrying. A
// mode the client did not declare is declined.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './fixtures/dsh-run.ts'
import { serveInProcess } from '../../../../test-support/serve-in-process.ts'
import { startQuestionServers, writeQuestionsOverlay, type QuestionServers } from './fixtures/question-server.ts'

const DSH = join(ROOT, 'packages/cli/cli/bin/dsh.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'dsh-serve-questions-'))
let servers: QuestionServers
let overlay: string
const clients: Client[] = []
const served: ChildProcess[] = []

beforeAll(async () => {
  servers = await startQuestionServers()
  overlay = writeQuestionsOverlay(servers, join(scratch, 'questions.yml'))
}, 60_000)

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  for (const child of served.splice(0)) child.kill('SIGTERM')
  await servers?.close()
  rmSync(scratch, { recursive: true, force: true })
})

type Modes = { form?: Record<string, never>; url?: Record<string, never> }

/** An SDK v2 client of `dsh serve` speaking `revision`, answering elicitation in `modes` with `answer` (and recording what it was asked). */
async function connect(mode: 'auto' | 'legacy', modes: Modes | undefined, answer: (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult> = () => ({ action: 'decline' }), serveArgs: readonly string[] = []) {
  const asked: ElicitRequest['params'][] = []
  const client = new Client({ name: 'dsh-serve-questions', version: '0' }, { versionNegotiation: { mode }, capabilities: modes ? { elicitation: modes } : {} })
  if (modes)
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params)
      return answer(request.params)
    })
  // `dsh serve` in this worker (serve-in-process.ts), with a DSH_HOME of its own; what only a process shows is below.
  const home = mkdtempSync(join(scratch, 'home-'))
  await client.connect(serveInProcess(['--preset', 'base', '--config', overlay, '--cwd', home, ...serveArgs], { cwd: ROOT, env: { DSH_HOME: home } }).transport)
  clients.push(client)
  const text = async (name: string) => {
    const result = await client.callTool({ name, arguments: {} })
    return (result.content as { type: string; text: string }[]).map((block) => block.text).join('\n')
  }
  return { client, asked, text }
}

describe.concurrent.each([
  ['auto', '2026-07-28'],
  ['legacy', '2025-11-25'],
] as const)('a %s client (%s) of dsh serve', (mode, _revision) => {
  it('answers a form and a URL question of a bridged server of either revision', async () => {
    const { asked, text } = await connect(mode, { form: {}, url: {} }, (params) => (params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Grace' } }))
    expect(await text('mcp__new__ask')).toBe('Hello Grace')
    expect(await text('mcp__old__ask')).toBe('Hello Grace')
    expect(await text('mcp__new__visit')).toBe('accept')
    expect(await text('mcp__old__visit')).toBe('accept')
    expect(asked.map((params) => params.mode ?? 'form')).toEqual(['form', 'form', 'url', 'url'])
    expect(asked[0]).toMatchObject({ message: 'The MCP server new asks: What is your name?', requestedSchema: { properties: { name: { default: 'Ada' } } } })
    expect(asked[1]!.message).toBe('The MCP server old asks: What is your name?')
    expect(asked[2]).toMatchObject({ message: 'The MCP server new asks: Open this page to link your account.', url: 'https://accounts.example.test/link?code=1234' })
  })

  it('a declined or dismissed answer is what the bridged server hears; parallel calls keep their answers apart', async () => {
    // One served client, its answers changed between the two halves: nothing of the first is left to the second.
    let n = 0
    let answer = (_params: ElicitRequest['params']): ElicitResult => (++n === 1 ? { action: 'decline' } : { action: 'cancel' })
    const { text } = await connect(mode, { form: {} }, (params) => answer(params))
    expect(await text('mcp__new__ask')).toBe('decline')
    expect(await text('mcp__old__ask')).toBe('cancel')

    answer = (params) => ({ action: 'accept', content: { name: `caller of ${params.message.split(' ')[3]}` } })
    expect((await Promise.all([text('mcp__new__ask'), text('mcp__old__ask')])).sort()).toEqual(['Hello caller of new', 'Hello caller of old'])
  })

  it('a mode the client did not declare is declined without asking it', async () => {
    const formOnly = await connect(mode, { form: {} }, () => ({ action: 'accept', content: { name: 'Grace' } }))
    expect(await formOnly.text('mcp__new__visit')).toBe('decline')
    expect(await formOnly.text('mcp__old__visit')).toBe('decline')
    expect(formOnly.asked).toEqual([])

    const none = await connect(mode, undefined)
    expect(await none.text('mcp__new__ask')).toBe('decline')
    expect(await none.text('mcp__old__ask')).toBe('decline')
  })
})

/** `dsh serve --http` on a loopback port of its own; resolves with the URL it prints. */
async function serveHttp(...args: string[]): Promise<URL> {
  const home = mkdtempSync(join(scratch, 'home-'))
  const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: home }
  delete env.INIT_CWD
  const child = spawn(process.execPath, [DSH, 'serve', '--http', '0', '--preset', 'base', '--config', overlay, '--cwd', home, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  served.push(child)
  let stderr = ''
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
      if (url) resolve(new URL(url))
    })
    child.once('exit', (code) => reject(new Error(`dsh serve --http exited (${code}):\n${stderr}`)))
  })
}

describe('dsh serve --http', () => {
  it('a 2026-07-28 client answers a bridged server\'s form and URL questions across its retries', async () => {
    const url = await serveHttp()
    const asked: ElicitRequest['params'][] = []
    const client = new Client({ name: 'dsh-serve-questions', version: '0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {}, url: {} } } })
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params)
      return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Grace' } }
    })
    await client.connect(new StreamableHTTPClientTransport(url))
    clients.push(client)
    const text = async (name: string) => ((await client.callTool({ name, arguments: {} })).content as { text: string }[]).map((block) => block.text).join('\n')
    expect(await text('mcp__new__ask')).toBe('Hello Grace')
    expect(await text('mcp__old__ask')).toBe('Hello Grace')
    expect(await text('mcp__new__visit')).toBe('accept')
    expect(asked).toHaveLength(3)
  })

  it('a call waiting for its client\'s answer still counts toward --max-concurrent-calls; its retry is never refused', async () => {
    const url = await serveHttp('--max-concurrent-calls', '1')
    const other = new Client({ name: 'dsh-serve-questions-other', version: '0' }, { versionNegotiation: { mode: 'auto' } })
    await other.connect(new StreamableHTTPClientTransport(url))
    clients.push(other)
    const text = async (client: Client, name: string) => ((await client.callTool({ name, arguments: {} })).content as { text: string }[]).map((block) => block.text).join('\n')
    let whileWaiting: unknown
    const client = new Client({ name: 'dsh-serve-questions', version: '0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } })
    client.setRequestHandler('elicitation/create', async () => {
      // The first call is suspended on this question: the one call --max-concurrent-calls 1 allows.
      whileWaiting = await text(other, 'mcp__new__ask').catch((error: unknown) => error)
      return { action: 'accept', content: { name: 'Grace' } }
    })
    await client.connect(new StreamableHTTPClientTransport(url))
    clients.push(client)
    expect(await text(client, 'mcp__new__ask')).toBe('Hello Grace')
    expect(String(whileWaiting)).toMatch(/already running 1 tool calls, its limit \(--max-concurrent-calls 1\)/)
    // Answered, the call is over: the next one is admitted (and its question declined: that client cannot be asked).
    expect(await text(other, 'mcp__new__ask')).toBe('decline')
  })

  it('SIGTERM while a call waits for its client\'s answer: the question is cancelled, the call ends, dsh exits 0 without waiting out --drain-timeout-ms', async () => {
    // A drain refuses every new request, the retry with the answer too: waiting would only run out the bound.
    const url = await serveHttp('--drain-timeout-ms', '600000')
    const child = served.at(-1)!
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const client = new Client({ name: 'dsh-serve-questions', version: '0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } })
    client.setRequestHandler('elicitation/create', async () => {
      child.kill('SIGTERM')
      await exited
      return { action: 'accept', content: { name: 'Grace' } }
    })
    await client.connect(new StreamableHTTPClientTransport(url))
    clients.push(client)
    await client.callTool({ name: 'mcp__new__ask', arguments: {} }).catch(() => undefined)
    expect(await exited).toBe(0)
  })
})

describe('--answer-timeout-ms', () => {
  it('a question the client never answers is given up after it, and the bridged server hears no answer', async () => {
    const { text, asked } = await connect('legacy', { form: {} }, () => new Promise<ElicitResult>(() => {}), ['--answer-timeout-ms', '300'])
    expect(await text('mcp__old__ask')).toBe('decline')
    expect(asked).toHaveLength(1)
  })
})

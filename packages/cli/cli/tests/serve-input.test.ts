// `dsh serve` under bad input (issue 16, items 1, 2 and 4): an over-size message, a stray rejection
// or exception in a plugin, an unparseable line or a malformed request is answered or logged, and
// the server keeps serving the next request.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { BIN, CORE_ROWS, dsh, dshIn, ECHO_PRESET, killRunning, oneStderrLine, removeTempDirs, ROOT, tempDir } from './helpers.ts'
import { fixturePath } from '../../../../test-support/fixture-path.ts'
import { serveStreamsInProcess } from '../../../../test-support/serve-in-process.ts'
import { RpcCode } from '../src/serve-rpc.ts'

interface RawServer {
  /** Writes one message (an object is serialized; a string goes as is) followed by a newline. */
  send(message: object | string): Promise<void>
  /** The message answering `id`, once it arrives (`null`: the first answer to a request whose id could not be read). */
  answer(id: number | string | null): Promise<any>
  /** Every message answering `id` so far. */
  answers(id: number | string | null): any[]
  stderr(): string
  /** Resolves with stderr written since the last `mark()` once it contains `text`. */
  logged(text: string | RegExp): Promise<string>
  /** Later `logged` calls look at what is written from now on only (a server shared by several cases). */
  mark(): void
  /** Ends the server's input: it stops. */
  end(): void
  readonly exited: Promise<number | null>
}

/** A real `dsh serve` process: for what only a process shows (a stray failure it survives, a pipe it stops filling). */
interface ProcessServer extends RawServer {
  readonly child: ChildProcessWithoutNullStreams
}

const servers: RawServer[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.end()
    await server.exited
  }
  killRunning()
  await removeTempDirs()
})

const shared = new Map<string, Promise<RawServer>>()

afterAll(async () => {
  for (const server of await Promise.all([...shared.values()].map((started) => started.catch(() => undefined)))) {
    if (!server) continue
    server.end()
    await server.exited
  }
})

/**
 * One server per argument list for the cases that need no fresh one: each uses ids of its own and
 * looks only at what is logged after it took the server. It runs in this worker.
 */
async function sharedServe(args: readonly string[]): Promise<RawServer> {
  const key = JSON.stringify(args)
  if (!shared.has(key)) shared.set(key, serveInWorker(args, {}, { owned: false }))
  const server = await shared.get(key)!
  server.mark()
  return server
}

/** `dsh serve` as a child process, initialized. */
async function serve(args: readonly string[], env: Record<string, string> = {}): Promise<ProcessServer> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, env: { ...process.env, ...env } })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  child.stdin.on('error', () => {})
  const server = lineServer({
    write: (text, done) => child.stdin.write(text, done),
    stdout: child.stdout,
    stderr: () => stderr,
    exited,
    exit: () => (child.exitCode ?? child.signalCode ?? undefined) as number | string | undefined,
    end: () => child.stdin.end(),
  }, (wake) => child.stderr.on('data', (chunk: string) => {
    stderr += chunk
    wake()
  }))
  servers.push(server)
  await initialize(server)
  return Object.assign(server, { child })
}

/**
 * `dsh serve` in this worker (test-support/serve-in-process.ts), initialized: the command's own
 * parsing, framing and serving on in-memory streams, without a process's second of CPU to boot. For
 * the cases about what the server answers and logs, not about the process.
 */
async function serveInWorker(args: readonly string[], env: Record<string, string> = {}, options: { owned: boolean } = { owned: true }): Promise<RawServer> {
  let wakeOnStderr = () => {}
  const served = serveStreamsInProcess(args, { cwd: ROOT, env, onStderr: () => wakeOnStderr() })
  let code: number | undefined
  const exited = served.exited.then((exitCode) => (code = exitCode))
  const server = lineServer({
    write: (text, done) => served.input.write(text, done),
    stdout: served.output,
    stderr: served.stderr,
    exited,
    exit: () => code,
    end: () => served.input.end(),
  }, (wake) => (wakeOnStderr = wake))
  if (options.owned) servers.push(server)
  await initialize(server)
  return server
}

interface LineIo {
  write(text: string, done: (error?: Error | null) => void): void
  readonly stdout: Readable
  stderr(): string
  readonly exited: Promise<number | null>
  /** The exit code or signal once the server has stopped. */
  exit(): number | string | undefined
  end(): void
}

/** A line-level MCP client over `io`; `onStderr` hands it the function to call when stderr grows. */
function lineServer(io: LineIo, onStderr: (wake: () => void) => void): RawServer {
  const lines: any[] = []
  const waiting = new Set<() => void>()
  const wake = () => {
    for (const waiter of [...waiting]) waiter()
  }
  let pending = ''
  let marked = 0
  io.stdout.setEncoding('utf8')
  io.stdout.on('data', (chunk: string) => {
    pending += chunk
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      lines.push(JSON.parse(pending.slice(0, at)))
      pending = pending.slice(at + 1)
    }
    wake()
  })
  onStderr(wake)
  void io.exited.then(wake)
  const until = <T>(found: () => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = found()
        if (value !== undefined) {
          waiting.delete(check)
          resolve(value)
        } else if (io.exit() !== undefined) {
          waiting.delete(check)
          reject(new Error(`dsh serve exited (${io.exit()}) before ${what}; stderr:\n${io.stderr().slice(-4000)}`))
        }
      }
      waiting.add(check)
      check()
    })
  return {
    send: (message) =>
      new Promise((resolve, reject) => io.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()))),
    answer: (id) => until(() => lines.find((line) => line.id === id && ('result' in line || 'error' in line)), `answering ${id}`),
    answers: (id) => lines.filter((line) => line.id === id && ('result' in line || 'error' in line)),
    stderr: io.stderr,
    logged: (text) => until(() => {
      const since = io.stderr().slice(marked)
      return (typeof text === 'string' ? since.includes(text) : text.test(since)) ? since : undefined
    }, `logging ${text}`),
    mark: () => {
      marked = io.stderr().length
    },
    end: io.end,
    exited: io.exited,
  }
}

async function initialize(server: RawServer): Promise<void> {
  await server.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
  await server.answer('init')
  await server.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
}

const ECHO = ['--preset', ECHO_PRESET]

/** A request in the SDK client's own key order: method and params first, the id last. */
function call(id: number, name: string, args: unknown): string {
  return `{"method":"tools/call","params":${JSON.stringify({ name, arguments: args })},"jsonrpc":"2.0","id":${id}}`
}

async function echoes(server: RawServer, id: number): Promise<void> {
  await server.send(call(id, 'echo', { text: `still serving ${id}` }))
  expect((await server.answer(id)).result.content).toEqual([{ type: 'text', text: `still serving ${id}` }])
}

describe('dsh serve: messages over --max-message-bytes', () => {
  it('a request with a readable id is answered with a JSON-RPC error, logged, and the next request served', async () => {
    const server = await sharedServe([...ECHO, '--max-message-bytes', '100000'])
    await server.send(call(2, 'echo', { text: 'x'.repeat(200_000) }))
    const refused = await server.answer(2)
    expect(refused.error.code).toBe(-32600)
    expect(refused.error.message).toMatch(/^request of 200\d{3} bytes is over this server's limit of 100000 bytes \(--max-message-bytes\)$/)
    expect(await server.logged('--max-message-bytes')).toMatch(/tools\/call/)
    await echoes(server, 3)
    // The id first (as some clients write it) works as well.
    await server.send(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":${JSON.stringify({ name: 'echo', arguments: { text: 'y'.repeat(200_000) } })}}`)
    expect((await server.answer('first')).error.code).toBe(-32600)
    await echoes(server, 4)
  })

  it('garbage with no id is logged and skipped', async () => {
    const server = await sharedServe([...ECHO, '--max-message-bytes', '100000'])
    await server.send('z'.repeat(300_000))
    // Lines are read in order: once the next request is answered the garbage has been read, and
    // logged (waiting for the log instead would wait forever on a server that skips it silently).
    await echoes(server, 5)
    expect(server.stderr()).toMatch(/message of 300000 bytes .*no id could be read/)
  })

  it('by default a message over 10 MB is served, and one over the default limit is refused without ending the server', async () => {
    const server = await sharedServe(ECHO)
    await server.send(call(6, 'no_such_tool', { blob: 'b'.repeat(12_000_000) }))
    expect(JSON.stringify((await server.answer(6)).result.content)).toContain('[UNKNOWN_TOOL]')
    await server.send('g'.repeat(70 * 1024 * 1024))
    await server.logged('--max-message-bytes')
    await echoes(server, 7)
  })

  it('the option is checked: a positive whole number, and only for serve', async () => {
    for (const value of ['0', '-1', '1.5', 'lots']) {
      const run = await dshIn(['serve', ...ECHO, `--max-message-bytes=${value}`])
      expect(run.code, value).toBe(2)
      expect(oneStderrLine(run), value).toMatch(/--max-message-bytes must be a positive whole number of bytes/)
    }
    const misplaced = await dshIn(['tools', ...ECHO, '--max-message-bytes', '1000'])
    expect(misplaced.code).toBe(2)
    expect(oneStderrLine(misplaced)).toMatch(/--max-message-bytes belongs to the serve command/)
  })
})

describe('dsh serve: malformed input', () => {
  it('an unparseable line is logged and the server keeps serving', async () => {
    const server = await sharedServe(ECHO)
    await server.send('{"jsonrpc": "2.0", "id": 9, "method": tools/list')
    await server.logged(/not JSON/)
    await echoes(server, 10)
  })

  it('a structurally invalid request gets -32602 with a one-line reason', async () => {
    const server = await sharedServe(ECHO)
    await server.send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { arguments: {} } })
    const missingName = (await server.answer(11)).error
    expect(missingName.code).toBe(-32602)
    expect(missingName.message).not.toContain('\n')
    expect(missingName.message).toMatch(/^invalid tools\/call request: params\.name: /)
    await server.send({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'echo', arguments: 'not an object' } })
    const badArguments = (await server.answer(12)).error
    expect(badArguments.code).toBe(-32602)
    expect(badArguments.message).not.toContain('\n')
    await server.send({ jsonrpc: '2.0', id: 13, method: 'no/such/method', params: {} })
    expect((await server.answer(13)).error.code).toBe(-32601)
    await echoes(server, 14)
  })

  it('a request whose id cannot be read (400 digits, an object) gets -32600 with id null, as JSON-RPC 2.0 asks; the server keeps serving', async () => {
    const server = await serveInWorker([...ECHO, '--max-message-bytes', '100000'])
    const huge = '9'.repeat(400)
    await server.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/list"}`)
    await server.send('{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list"}')
    // Over --max-message-bytes, the id written first and last (the SDK client's order).
    await server.send(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":${JSON.stringify({ name: 'echo', arguments: { text: 'x'.repeat(200_000) } })}}`)
    await server.send(`{"method":"tools/call","params":${JSON.stringify({ name: 'echo', arguments: { text: 'x'.repeat(200_000) } })},"jsonrpc":"2.0","id":${huge}}`)
    // Lines are read in order: once this is answered, the four before it have been.
    await echoes(server, 15)
    const refused = server.answers(null)
    expect(refused.map((answer) => answer.error.code)).toEqual([-32600, -32600, -32600, -32600])
    expect(refused[0].error.message).toBe('invalid JSON-RPC request: its id is no string or integer')
    expect(refused[1].error.message).toBe('invalid JSON-RPC request: its id is no string or integer')
    expect(refused[2].error.message).toMatch(/^request of 200\d{3} bytes is over this server's limit of 100000 bytes \(--max-message-bytes\)$/)
    // No answer went to an id the client did not send (a rounded one, Infinity as null is only what JSON makes of it).
    expect(server.answers(Number(huge))).toEqual([])
  })

  it('a request whose id is a fraction gets -32600 at that id naming the id, not the schema\'s "Unrecognized key: id"; the server keeps serving', async () => {
    const server = await serveInWorker(ECHO)
    await server.send('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}')
    await echoes(server, 16)
    expect(server.answers(1.5).map((answer) => answer.error)).toEqual([{ code: -32600, message: 'invalid JSON-RPC request: its id 1.5 is not an integer (MCP request ids are strings or integers)' }])
  })

  it('prompts/get for an unknown name says so once, without the SDK prefix (clients add their own)', async () => {
    const project = await tempDir()
    await mkdir(join(project, '.git'))
    const server = await serveInWorker(['--preset', 'base', '--cwd', project], { HOME: await tempDir() })
    await server.send({ jsonrpc: '2.0', id: 15, method: 'prompts/get', params: { name: 'no-such-skill' } })
    const error = (await server.answer(15)).error
    expect(error.code).toBe(-32602)
    expect(error.message).toBe('no user-invocable skill named "no-such-skill"')
    await server.send({ jsonrpc: '2.0', id: 16, method: 'prompts/get', params: {} })
    const missing = (await server.answer(16)).error
    expect(missing.code).toBe(-32602)
    expect(missing.message).toMatch(/^invalid prompts\/get request: params\.name: /)
  })
})

describe('dsh serve: a stray failure in a plugin is logged with the plugin, and the server keeps serving', () => {
  async function strayPreset(): Promise<string> {
    const dir = await tempDir()
    await mkdir(join(dir, 'stray'))
    await writeFile(
      join(dir, 'stray', 'plugin.mjs'),
      `export const name = 'stray'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'reject_later', description: 'Leaves a rejected promise nobody handles.', parameters: { type: 'object' },
    execute: async () => { void Promise.reject(new Error('stray rejection')); return { ok: true } } })
  ctx.tools.register({ name: 'throw_later', description: 'Throws from a timer.', parameters: { type: 'object' },
    execute: async () => { setTimeout(() => { throw new Error('stray exception') }, 1); return { ok: true } } })
}
`,
    )
    const preset = join(dir, 'preset.yml')
    await writeFile(preset, `${CORE_ROWS}- id: stray-row\n  name: ./stray/plugin.mjs\n- id: echo\n  name: ${JSON.stringify(join(ROOT, 'examples', 'echo', 'echo.ts'))}\n`)
    return preset
  }

  it('an unhandled rejection and an uncaught exception', async () => {
    const server = await serve(['--preset', await strayPreset()])
    await server.send(call(20, 'reject_later', {}))
    expect((await server.answer(20)).result.isError ?? false).toBe(false)
    expect(await server.logged('stray rejection')).toMatch(/unhandled rejection in row "stray-row" \(\.\/stray\/plugin\.mjs\).*: stray rejection/)
    await echoes(server, 21)
    await server.send(call(22, 'throw_later', {}))
    await server.answer(22)
    expect(await server.logged('stray exception')).toMatch(/uncaught exception in row "stray-row" \(\.\/stray\/plugin\.mjs\).*: stray exception/)
    await echoes(server, 23)
    expect(server.child.exitCode).toBeNull()
  })

  it('a one-shot command still exits 70 on one', async () => {
    const run = await dsh(['call', 'reject_later', '{}', '--preset', await strayPreset()])
    expect(run.code).toBe(70)
    expect(oneStderrLine(run)).toMatch(/internal error \(unhandled rejection in a plugin\): stray rejection/)
  })
})

/** An overlay mounting the MCP fixture server (its `slow` tool answers after `ms`) as server `fx`. */
async function slowServerOverlay(): Promise<string> {
  const dir = await tempDir()
  const overlay = join(dir, 'fixture.yml')
  const server = fixturePath(join(ROOT, 'packages', 'mcp', 'mcp', 'tests', 'fixtures', 'server.mjs'))
  await writeFile(overlay, `- name: dsh-mcp\n  config: { serverName: fx, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}], shutdownGraceMs: 500 }\n`)
  return overlay
}

describe('dsh serve: bounds on one client (issue 26 item 9)', () => {
  it('past --max-concurrent-calls a tools/call is answered at once with an error saying so; once calls end, calls run again', async () => {
    const server = await serveInWorker([...ECHO, '--config', await slowServerOverlay(), '--max-concurrent-calls', '2'])
    await server.send(call(30, 'mcp__fx__slow', { ms: 600_000 }))
    await server.send(call(31, 'mcp__fx__slow', { ms: 600_000 }))
    await server.send(call(32, 'echo', { text: 'one too many' }))
    const refused = await server.answer(32)
    expect(refused.error.code).toBe(RpcCode.SERVER_BUSY)
    expect(refused.error.message).toContain('already running 2 tool calls, its limit (--max-concurrent-calls 2)')
    // The client gives up on the two slow calls: their slots free, and the next call runs.
    for (const requestId of [30, 31]) await server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } })
    for (let id = 33; ; id++) {
      await server.send(call(id, 'echo', { text: 'served' }))
      const answer = await server.answer(id)
      if (answer.error?.code === RpcCode.SERVER_BUSY) continue
      expect(answer.result.content).toEqual([{ type: 'text', text: 'served' }])
      break
    }
  })

  it('a client that stops reading is disconnected once --max-output-bytes of answers are unread, instead of queueing forever', async () => {
    const server = await serve([...ECHO, '--max-output-bytes', '200000'])
    server.child.stdout.pause()
    const text = 'x'.repeat(50_000)
    // Far more than the pipe and the bound hold; dsh serve must give up on this client, not buffer it all.
    for (let id = 40; id < 240 && server.child.exitCode === null; id++) await server.send(call(id, 'echo', { text })).catch(() => {})
    expect(await server.logged('the client stopped reading')).toMatch(/bytes of answers are unread, over --max-output-bytes 200000; closing the connection/)
    server.child.stdout.resume()
    await server.exited
  })
})

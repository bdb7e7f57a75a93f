import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isAlive } from './fixtures/rig.ts'
import {
  CancellationTokenSource,
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node'
import {
  fakeEnv,
  fakeEvents,
  fakeMessages,
  fakeServerPath,
  readFakeLog,
  waitForFakeLog,
  type FakeLogEntry,
  type FakeLspConfig,
} from './fixtures/fake-config.ts'

interface Fake {
  child: ChildProcessWithoutNullStreams
  log: string
  stderr: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const children: ChildProcessWithoutNullStreams[] = []
const connections: MessageConnection[] = []
const dirs: string[] = []
const extraPids: number[] = []

afterEach(() => {
  for (const c of connections.splice(0)) c.dispose()
  for (const child of children.splice(0)) {
    // detached → the fake leads its own process group, which also holds any grandchild
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  for (const pid of extraPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function startFake(config: FakeLspConfig, extraEnv: Record<string, string> = {}): Fake {
  const dir = mkdtempSync(join(tmpdir(), 'fake-lsp-'))
  dirs.push(dir)
  const log = join(dir, 'log.jsonl')
  const child = spawn(process.execPath, [fakeServerPath], {
    cwd: dir,
    env: { ...process.env, ...extraEnv, ...fakeEnv(config, log) },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  children.push(child)
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  child.stdin.on('error', () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  )
  return { child, log, stderr: () => stderr, exited }
}

function connect(fake: Fake): MessageConnection {
  const conn = createMessageConnection(
    new StreamMessageReader(fake.child.stdout),
    new StreamMessageWriter(fake.child.stdin),
  )
  conn.onError(() => {})
  conn.onClose(() => {})
  connections.push(conn)
  conn.listen()
  return conn
}

const WS = 'file:///tmp/ws'
const DOC = 'file:///tmp/ws/a.ts'
const pos = { textDocument: { uri: DOC }, position: { line: 0, character: 0 } }

async function handshake(conn: MessageConnection, capabilities: unknown = {}): Promise<any> {
  const result = await conn.sendRequest('initialize', {
    processId: null,
    rootUri: WS,
    workspaceFolders: [{ uri: WS, name: 'workspace' }],
    initializationOptions: null,
    capabilities,
  })
  await conn.sendNotification('initialized', {})
  return result
}

async function open(conn: MessageConnection, text = 'const a = 1\n'): Promise<void> {
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri: DOC, languageId: 'typescript', version: 1, text },
  })
}

function frame(body: string): Buffer {
  const b = Buffer.from(body, 'utf8')
  return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b])
}

function rawSend(fake: Fake, msg: object): void {
  fake.child.stdin.write(frame(JSON.stringify({ jsonrpc: '2.0', ...msg })))
}

/** Collect raw stdout bytes; `until` resolves once the accumulated text satisfies the predicate. */
function rawStdout(fake: Fake): { text: () => string; until: (p: (s: string) => boolean) => Promise<string> } {
  let buf = Buffer.alloc(0)
  const waiters: Array<() => void> = []
  fake.child.stdout.on('data', (c: Buffer) => {
    buf = Buffer.concat([buf, c])
    for (const w of waiters.splice(0)) w()
  })
  const text = () => buf.toString('utf8')
  return {
    text,
    until: (p) =>
      new Promise<string>((resolve, reject) => {
        const holds = () => {
          try {
            return p(text())
          } catch {
            return false // e.g. a partial frame
          }
        }
        const check = () => {
          if (holds()) resolve(text())
          else waiters.push(check)
        }
        fake.child.on('close', () => (holds() ? resolve(text()) : reject(new Error(`stdout ended: ${JSON.stringify(text())}`))))
        check()
      }),
  }
}

/** Parse well-formed frames from raw bytes (Content-Length only). */
function parseFrames(text: string): string[] {
  const bodies: string[] = []
  let rest = Buffer.from(text, 'utf8')
  for (;;) {
    const sep = rest.indexOf('\r\n\r\n')
    if (sep < 0) return bodies
    const m = /Content-Length: (\d+)/.exec(rest.subarray(0, sep).toString('ascii'))
    if (!m) throw new Error('frame without length')
    const len = Number(m[1])
    bodies.push(rest.subarray(sep + 4, sep + 4 + len).toString('utf8'))
    rest = rest.subarray(sep + 4 + len)
  }
}


async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

const hasEvent = (name: string) => (entries: FakeLogEntry[]) => fakeEvents(entries, name).length > 0

describe('fake stdio language server', () => {
  it('initialize/initialized round trip with capability overrides, serverInfo and logged client params', async () => {
    const fake = startFake({
      capabilities: { hoverProvider: false, textDocumentSync: { openClose: true, change: 2 }, implementationProvider: null },
      positionEncoding: 'utf-8',
      serverInfo: { name: 'fake', version: '9.9' },
    })
    const conn = connect(fake)
    const result = await handshake(conn, { window: { workDoneProgress: true }, general: { positionEncodings: ['utf-16'] } })
    expect(result).toEqual({
      capabilities: {
        textDocumentSync: { openClose: true, change: 2 },
        definitionProvider: true,
        referencesProvider: true,
        hoverProvider: false,
        positionEncoding: 'utf-8',
      },
      serverInfo: { name: 'fake', version: '9.9' },
    })
    const entries = await waitForFakeLog(fake.log, hasEvent('initialized'))
    const started = fakeEvents(entries, 'started')[0]
    expect(started?.pid).toBe(fake.child.pid)
    expect(started?.ppid).toBe(process.pid)
    const init = fakeMessages(entries, 'in', 'initialize')[0]
    expect(init?.id).toBe(0)
    expect(init?.params.capabilities.window.workDoneProgress).toBe(true)
    expect(init?.params.processId).toBeNull()
    expect(fakeMessages(entries, 'in', 'initialized')).toHaveLength(1)
    expect(fakeMessages(entries, 'out').find((e) => e.id === 0)?.result.serverInfo).toEqual({ name: 'fake', version: '9.9' })
  })

  it('defaults: all four providers and Full sync; null results for the four methods; -32601 for unknown', async () => {
    const fake = startFake({})
    const conn = connect(fake)
    const result = await handshake(conn)
    expect(result).toEqual({
      capabilities: {
        textDocumentSync: 1,
        definitionProvider: true,
        referencesProvider: true,
        implementationProvider: true,
        hoverProvider: true,
      },
    })
    await open(conn)
    for (const m of ['textDocument/definition', 'textDocument/references', 'textDocument/implementation', 'textDocument/hover']) {
      expect(await conn.sendRequest(m, pos)).toBeNull()
    }
    await expect(conn.sendRequest('fake/unknown', {})).rejects.toMatchObject({ code: -32601 })
  })

  it('answers configured results per method, including $noResult and an initialize override', async () => {
    const loc = { uri: 'file:///tmp/ws/b.ts', range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } } }
    const fake = startFake({
      results: {
        'textDocument/definition': [loc],
        'textDocument/references': [loc, loc],
        'textDocument/implementation': loc,
        'textDocument/hover': { contents: 'hi' },
        'custom/method': { ok: 1 },
      },
    })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    expect(await conn.sendRequest('textDocument/definition', pos)).toEqual([loc])
    expect(await conn.sendRequest('textDocument/references', { ...pos, context: { includeDeclaration: true } })).toEqual([loc, loc])
    expect(await conn.sendRequest('textDocument/implementation', pos)).toEqual(loc)
    expect(await conn.sendRequest('textDocument/hover', pos)).toEqual({ contents: 'hi' })
    expect(await conn.sendRequest('custom/method', {})).toEqual({ ok: 1 })
    const refs = fakeMessages(readFakeLog(fake.log), 'in', 'textDocument/references')[0]
    expect(refs?.params.context).toEqual({ includeDeclaration: true })

    // '$noResult' (a response without a result member) is rejected by vscode-jsonrpc itself, so read raw bytes
    const bare = startFake({ results: { 'textDocument/definition': '$noResult' } })
    const out = rawStdout(bare)
    rawSend(bare, { id: 7, method: 'textDocument/definition', params: pos })
    const text = await out.until((s) => parseFrames(s).length === 1 && s.endsWith('}'))
    expect(JSON.parse(parseFrames(text)[0]!)).toEqual({ jsonrpc: '2.0', id: 7 })

    const nullInit = startFake({ results: { initialize: null } })
    expect(await connect(nullInit).sendRequest('initialize', { processId: null, capabilities: {} })).toBeNull()
  })

  it('progress: create → begin → report → end, resultsBeforeReady until end', async () => {
    const fake = startFake({
      progress: { token: 'tok', durationMs: 50, title: 'Loading project' },
      resultsBeforeReady: { 'textDocument/definition': [] },
      results: { 'textDocument/definition': [{ uri: DOC, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }] },
    })
    const conn = connect(fake)
    const progress: any[] = []
    let ended!: () => void
    const endSeen = new Promise<void>((r) => (ended = r))
    conn.onNotification('$/progress', (p: any) => {
      progress.push(p)
      if (p.value.kind === 'end') ended()
    })
    let createSeen!: (params: any) => void
    const createArrived = new Promise<any>((r) => (createSeen = r))
    let releaseCreate!: () => void
    const createReleased = new Promise<null>((r) => (releaseCreate = () => r(null)))
    conn.onRequest('window/workDoneProgress/create', (params: any) => {
      createSeen(params)
      return createReleased // the fake stays "indexing" until we answer
    })
    await handshake(conn, { window: { workDoneProgress: true } })
    // nothing starts before the first didOpen
    expect(await conn.sendRequest('textDocument/definition', pos)).toEqual([])
    await open(conn)
    expect(await createArrived).toEqual({ token: 'tok' })
    expect(await conn.sendRequest('textDocument/definition', pos)).toEqual([]) // before end
    expect(await conn.sendRequest('textDocument/hover', pos)).toBeNull() // falls back to results/defaults
    releaseCreate()
    await endSeen
    expect(progress.map((p) => p.value.kind)).toEqual(['begin', 'report', 'end'])
    expect(progress.every((p) => p.token === 'tok')).toBe(true)
    expect(progress[0].value.title).toBe('Loading project')
    expect(await conn.sendRequest('textDocument/definition', pos)).toHaveLength(1) // after end
    const entries = await waitForFakeLog(fake.log, hasEvent('progress-end'))
    const create = fakeMessages(entries, 'out', 'window/workDoneProgress/create')[0]
    expect(create?.id).toBe('s1')
    expect(fakeMessages(entries, 'in').find((e) => e.responseTo === 'window/workDoneProgress/create')).toMatchObject({ id: 's1', result: null })
  })

  it('progress: onInitialized without a create request', async () => {
    const fake = startFake({ progress: { onInitialized: true, createRequest: false, durationMs: 20 } })
    const conn = connect(fake)
    let createCount = 0
    conn.onRequest('window/workDoneProgress/create', () => {
      createCount++
      return null
    })
    const kinds: string[] = []
    const endSeen = new Promise<void>((r) =>
      conn.onNotification('$/progress', (p: any) => {
        kinds.push(p.value.kind)
        if (p.value.kind === 'end') r()
      }),
    )
    await handshake(conn)
    await endSeen // no didOpen was sent
    expect(kinds).toEqual(['begin', 'report', 'end'])
    expect(createCount).toBe(0)
  })

  it('hang + answerCancel answers -32800; delayed requests can be cancelled; delays answer eventually', async () => {
    const fake = startFake({
      hang: ['textDocument/definition'],
      delayMs: { 'textDocument/references': 600_000, 'textDocument/hover': 20 },
      answerCancel: true,
      results: { 'textDocument/hover': { contents: 'late' } },
    })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    const src = new CancellationTokenSource()
    const hung = conn.sendRequest('textDocument/definition', pos, src.token)
    await waitForFakeLog(fake.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length > 0)
    src.cancel()
    const err = await hung.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ResponseError)
    expect((err as ResponseError<unknown>).code).toBe(-32800)
    expect((err as ResponseError<unknown>).message).toBe('cancelled')

    const src2 = new CancellationTokenSource()
    const delayed = conn.sendRequest('textDocument/references', pos, src2.token)
    await waitForFakeLog(fake.log, (e) => fakeMessages(e, 'in', 'textDocument/references').length > 0)
    src2.cancel()
    await expect(delayed).rejects.toMatchObject({ code: -32800 })

    expect(await conn.sendRequest('textDocument/hover', pos)).toEqual({ contents: 'late' })
    const entries = readFakeLog(fake.log)
    expect(fakeMessages(entries, 'in', '$/cancelRequest')).toHaveLength(2)
  })

  it('hang without answerCancel ignores the cancel; hang on initialize never answers', async () => {
    const fake = startFake({ hang: ['textDocument/definition'] })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    const src = new CancellationTokenSource()
    void conn.sendRequest('textDocument/definition', pos, src.token).catch(() => {})
    src.cancel()
    // the fake handles messages in order: once hover is answered, the cancel has been processed
    expect(await conn.sendRequest('textDocument/hover', pos)).toBeNull()
    let entries = readFakeLog(fake.log)
    const defId = fakeMessages(entries, 'in', 'textDocument/definition')[0]?.id
    expect(fakeMessages(entries, 'in', '$/cancelRequest')).toHaveLength(1)
    expect(fakeMessages(entries, 'out').filter((e) => e.id === defId)).toHaveLength(0)

    const stuck = startFake({ hang: ['initialize'] })
    const conn2 = connect(stuck)
    void conn2.sendRequest('initialize', { processId: null, capabilities: {} }).catch(() => {})
    await expect(conn2.sendRequest('fake/ping', {})).rejects.toMatchObject({ code: -32601 })
    entries = readFakeLog(stuck.log)
    expect(fakeMessages(entries, 'in', 'initialize')).toHaveLength(1)
    expect(fakeMessages(entries, 'out').filter((e) => e.id === 0)).toHaveLength(0)
  })

  it('errorReply always errors (message may be absent); errorOnce errors only the first time', async () => {
    const fake = startFake({
      errorReply: {
        'textDocument/hover': { code: -32603, message: 'boom', data: { x: 1 } },
        'textDocument/definition': { code: -32000 },
        'textDocument/implementation': { code: -32001, message: 42 },
      },
      errorOnce: { 'textDocument/references': { code: -32801, message: 'content modified' } },
      results: { 'textDocument/references': [] },
    })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    await expect(conn.sendRequest('textDocument/hover', pos)).rejects.toMatchObject({ code: -32603, message: 'boom', data: { x: 1 } })
    await expect(conn.sendRequest('textDocument/hover', pos)).rejects.toMatchObject({ code: -32603 })
    await expect(conn.sendRequest('textDocument/definition', pos)).rejects.toMatchObject({ code: -32000 })
    await expect(conn.sendRequest('textDocument/implementation', pos)).rejects.toMatchObject({ code: -32001 })
    await expect(conn.sendRequest('textDocument/references', pos)).rejects.toMatchObject({ code: -32801, message: 'content modified' })
    expect(await conn.sendRequest('textDocument/references', pos)).toEqual([])
    expect(await conn.sendRequest('textDocument/references', pos)).toEqual([])
    const errors = fakeMessages(readFakeLog(fake.log), 'out').filter((e) => e.error !== undefined)
    expect(errors.map((e) => e.error)).toContainEqual({ code: -32000 })
    expect(errors.map((e) => e.error)).toContainEqual({ code: -32001, message: 42 })
  })

  it('crashOnOpen exits 1 after writing stderr and stderrBeforeExit', async () => {
    const fake = startFake({ crashOnOpen: true, stderr: 'starting up\n', stderrBeforeExit: 'FATAL: boom\n' })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    expect(await fake.exited).toEqual({ code: 1, signal: null })
    expect(fake.stderr()).toBe('starting up\nFATAL: boom\n')
    expect(fakeEvents(readFakeLog(fake.log), 'exiting')).toEqual([{ event: 'exiting', code: 1, reason: 'crashOnOpen' }])
  })

  it('exitAfterReply exits 0 after the answer is delivered; exitAfterInitialize exits after the reply', async () => {
    const fake = startFake({ exitAfterReply: true, results: { 'textDocument/hover': { contents: 'bye' } } })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    expect(await conn.sendRequest('textDocument/hover', pos)).toEqual({ contents: 'bye' })
    expect(await fake.exited).toEqual({ code: 0, signal: null })

    const early = startFake({ exitAfterInitialize: true })
    const init = await connect(early).sendRequest('initialize', { processId: null, capabilities: {} })
    expect(init).toMatchObject({ capabilities: { hoverProvider: true } })
    expect(await early.exited).toEqual({ code: 0, signal: null })
  })

  it('serverRequests and serverNotifications are sent on each didOpen and responses are logged', async () => {
    const fake = startFake({
      serverRequests: [
        { method: 'workspace/configuration', params: { items: [{ section: 'a' }, {}] } },
        { method: 'workspace/applyEdit', params: { edit: { changes: {} } } },
      ],
      serverNotifications: [{ method: 'window/logMessage', params: { type: 3, message: 'hello' } }],
    })
    const conn = connect(fake)
    const notes: any[] = []
    conn.onNotification('window/logMessage', (p: any) => {
      notes.push(p)
    })
    conn.onRequest('workspace/configuration', (p: any) => p.items.map(() => ({ setting: true })))
    conn.onRequest('workspace/applyEdit', () => new ResponseError(-32601, 'applyEdit is not permitted by this host'))
    await handshake(conn)
    await open(conn)
    await open(conn)
    const entries = await waitForFakeLog(fake.log, (e) => fakeMessages(e, 'in').filter((m) => m.responseTo !== undefined).length === 4)
    const responses = fakeMessages(entries, 'in').filter((m) => m.responseTo !== undefined)
    expect(responses.map((r) => [r.id, r.responseTo])).toEqual([
      ['s1', 'workspace/configuration'],
      ['s2', 'workspace/applyEdit'],
      ['s3', 'workspace/configuration'],
      ['s4', 'workspace/applyEdit'],
    ])
    expect(responses[0]?.result).toEqual([{ setting: true }, { setting: true }])
    expect(responses[1]?.error).toMatchObject({ code: -32601, message: 'applyEdit is not permitted by this host' })
    expect(fakeMessages(entries, 'out', 'workspace/configuration')[0]?.params).toEqual({ items: [{ section: 'a' }, {}] })
    await until(() => notes.length === 2, 'logMessage notifications')
    expect(notes[0]).toEqual({ type: 3, message: 'hello' })
  })

  it('ignoreShutdown + trapSigterm survives shutdown and SIGTERM until SIGKILL', async () => {
    const fake = startFake({ ignoreShutdown: true, trapSigterm: true })
    const conn = connect(fake)
    await handshake(conn)
    void conn.sendRequest('shutdown').catch(() => {})
    await waitForFakeLog(fake.log, (e) => fakeMessages(e, 'in', 'shutdown').length > 0)
    fake.child.kill('SIGTERM')
    await waitForFakeLog(fake.log, hasEvent('sigterm'))
    // still serving after SIGTERM
    expect(await conn.sendRequest('textDocument/hover', pos)).toBeNull()
    const entries = readFakeLog(fake.log)
    const shutdownId = fakeMessages(entries, 'in', 'shutdown')[0]?.id
    expect(fakeMessages(entries, 'out').filter((e) => e.id === shutdownId)).toHaveLength(0)
    fake.child.kill('SIGKILL')
    expect(await fake.exited).toEqual({ code: null, signal: 'SIGKILL' })
  })

  it('without trapSigterm, SIGTERM is logged and kills the fake', async () => {
    const fake = startFake({})
    const conn = connect(fake)
    await handshake(conn)
    fake.child.kill('SIGTERM')
    expect(await fake.exited).toEqual({ code: null, signal: 'SIGTERM' })
    expect(fakeEvents(readFakeLog(fake.log), 'sigterm')).toHaveLength(1)
  })

  it('grandchild: pid logged before the initialize reply, survives SIGTERM, dies with the group SIGKILL', async () => {
    const fake = startFake({ grandchild: true })
    const conn = connect(fake)
    await handshake(conn)
    const gc = fakeEvents(readFakeLog(fake.log), 'grandchild')[0]
    expect(gc?.pid).toBeTypeOf('number')
    const pid = gc!.pid!
    extraPids.push(pid)
    expect(pid).not.toBe(fake.child.pid)
    expect(isAlive(pid)).toBe(true)
    process.kill(-fake.child.pid!, 'SIGTERM')
    expect((await fake.exited).signal).toBe('SIGTERM')
    await waitForFakeLog(fake.log, hasEvent('grandchild-sigterm'))
    expect(isAlive(pid)).toBe(true) // trapped SIGTERM
    process.kill(-fake.child.pid!, 'SIGKILL')
    await until(() => !isAlive(pid), 'grandchild death')
  })

  it('exit after shutdown logs exit-clean and exits 0 (also with exitDelayMs); exit without shutdown exits 1', async () => {
    for (const config of [{}, { exitDelayMs: 30 }] satisfies FakeLspConfig[]) {
      const fake = startFake(config)
      const conn = connect(fake)
      await handshake(conn)
      expect(await conn.sendRequest('shutdown')).toBeNull()
      await conn.sendNotification('exit')
      expect(await fake.exited).toEqual({ code: 0, signal: null })
      const entries = readFakeLog(fake.log)
      expect(fakeEvents(entries, 'exit-clean')).toHaveLength(1)
      expect(fakeMessages(entries, 'in', 'exit')).toHaveLength(1)
    }
    const rude = startFake({})
    const conn = connect(rude)
    await handshake(conn)
    await conn.sendNotification('exit')
    expect(await rude.exited).toEqual({ code: 1, signal: null })
    expect(fakeEvents(readFakeLog(rude.log), 'exit-without-shutdown')).toHaveLength(1)
  })

  it('exits when stdin ends unless ignoreStdinEnd', async () => {
    const fake = startFake({})
    fake.child.stdin.end()
    expect(await fake.exited).toEqual({ code: 0, signal: null })
    expect(fakeEvents(readFakeLog(fake.log), 'stdin-end')).toHaveLength(1)

    const stubborn = startFake({ ignoreStdinEnd: true })
    stubborn.child.stdin.end()
    await waitForFakeLog(stubborn.log, hasEvent('stdin-end'))
    await new Promise((r) => setTimeout(r, 200))
    expect(stubborn.child.exitCode).toBeNull()
    expect(isAlive(stubborn.child.pid!)).toBe(true)
    expect(fakeEvents(readFakeLog(stubborn.log), 'exiting')).toHaveLength(0)
  })

  it('echoEnv echoes the variable in the started event and the $echoEnv hover', async () => {
    const fake = startFake({ echoEnv: 'FAKE_ECHO', results: { 'textDocument/hover': '$echoEnv' } }, { FAKE_ECHO: 'secret-value' })
    const conn = connect(fake)
    await handshake(conn)
    await open(conn)
    expect(await conn.sendRequest('textDocument/hover', pos)).toEqual({ contents: { kind: 'markdown', value: 'secret-value' } })
    expect(fakeEvents(readFakeLog(fake.log), 'started')[0]?.env).toEqual({ FAKE_ECHO: 'secret-value' })
  })

  it('pauseStdinAfterInitialized stops reading so a large write stays buffered', async () => {
    const fake = startFake({ pauseStdinAfterInitialized: true })
    const conn = connect(fake)
    await handshake(conn)
    await waitForFakeLog(fake.log, hasEvent('stdin-paused'))
    const big = 'x'.repeat(4 * 1024 * 1024)
    void open(conn, big).catch(() => {})
    await new Promise((r) => setTimeout(r, 300))
    // a pipe holds ~64 KiB; the rest of 4 MiB cannot have been consumed
    expect(fake.child.stdin.writableLength).toBeGreaterThan(1024 * 1024)
    expect(fakeMessages(readFakeLog(fake.log), 'in', 'textDocument/didOpen')).toHaveLength(0)
  })

  describe('garbage modes (raw bytes)', () => {
    const init = { id: 1, method: 'initialize', params: { processId: null, capabilities: {} } }

    it('strayLineBeforeInitializeReply writes a bare line right before the framed reply', async () => {
      const fake = startFake({ garbage: 'strayLineBeforeInitializeReply' })
      const out = rawStdout(fake)
      rawSend(fake, init)
      const text = await out.until((s) => s.includes('"capabilities"') && s.trimEnd().endsWith('}'))
      expect(text.startsWith('garbage\r\nContent-Length: ')).toBe(true)
      const frames = parseFrames(text.slice('garbage\r\n'.length))
      expect(JSON.parse(frames[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { capabilities: { textDocumentSync: 1 } } })
    })

    async function firstTextDocumentAnswer(config: FakeLspConfig, done: (s: string) => boolean): Promise<string> {
      const fake = startFake(config)
      const out = rawStdout(fake)
      rawSend(fake, init)
      const afterInit = await out.until((s) => parseFrames(s).length === 1 && s.endsWith('}'))
      rawSend(fake, { method: 'initialized', params: {} })
      rawSend(fake, { method: 'textDocument/didOpen', params: { textDocument: { uri: DOC, languageId: 'ts', version: 1, text: '' } } })
      rawSend(fake, { id: 2, method: 'textDocument/definition', params: pos })
      const text = await out.until((s) => done(s.slice(afterInit.length)))
      return text.slice(afterInit.length)
    }

    it('badContentLength sends a non-numeric Content-Length header', async () => {
      const text = await firstTextDocumentAnswer({ garbage: 'badContentLength' }, (s) => s.endsWith('}'))
      expect(text).toBe('Content-Length: abc\r\n\r\n{"jsonrpc":"2.0","id":2,"result":null}')
    })

    it('invalidJson sends a correctly framed body that is not JSON', async () => {
      const text = await firstTextDocumentAnswer({ garbage: 'invalidJson' }, (s) => parseFrames(s).length === 1 && s.endsWith('json'))
      const [body] = parseFrames(text)
      expect(text).toBe(`Content-Length: ${Buffer.byteLength(body!)}\r\n\r\n${body}`)
      expect(() => JSON.parse(body!)).toThrow()
    })

    it('missingContentLength sends a header block without Content-Length', async () => {
      const text = await firstTextDocumentAnswer({ garbage: 'missingContentLength' }, (s) => s.endsWith('}'))
      const [header, body] = text.split('\r\n\r\n')
      expect(header).not.toMatch(/content-length/i)
      expect(header).toBe('X-Fake-Header: 1')
      expect(JSON.parse(body!)).toEqual({ jsonrpc: '2.0', id: 2, result: null })
    })

    it('nonObjectFrames sends 42, null, unknown id 999 and a string-id response before the real answer', async () => {
      const text = await firstTextDocumentAnswer({ garbage: 'nonObjectFrames' }, (s) => parseFrames(s).length === 5 && s.endsWith('}'))
      const frames = parseFrames(text).map((b) => JSON.parse(b))
      expect(frames[0]).toBe(42)
      expect(frames[1]).toBeNull()
      expect(frames[2]).toMatchObject({ id: 999 })
      expect(frames[3]).toMatchObject({ id: 'string-id' })
      expect(frames[3]).not.toHaveProperty('method')
      expect(frames[4]).toEqual({ jsonrpc: '2.0', id: 2, result: null })
    })
  })
})

// [PROC] The writes that bring a kept document up to date: didChange and didSave go out under one
// waiter for both (issue 27 item 2, diagnostics after a change: each waiter is a Lifetime race or
// child and its promises, on every change), and with the request about the document in one write to
// the server's stdin (each write is a system call here and a wake-up of the server). Counted, not timed.
import { writeFileSync } from 'node:fs'
import { Socket } from 'node:net'
import { join } from 'node:path'
import { Lifetime } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const SAVING = {
  diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false },
  textDocumentSync: { openClose: true, change: 1, save: { includeText: false } },
}

/**
 * Waiters on a Lifetime (a `race`, a `child` for a signal, an `onAbort` listener) begun while
 * `work` runs: the connection's wait for written bytes is one of them.
 */
async function waitersBegunBy(work: () => Promise<unknown>): Promise<number> {
  const { child, race, onAbort } = Lifetime.prototype
  let begun = 0
  Lifetime.prototype.child = function (this: Lifetime, ...args: Parameters<Lifetime['child']>) {
    begun++
    return child.apply(this, args)
  }
  Lifetime.prototype.race = function (this: Lifetime, ...args: Parameters<Lifetime['race']>) {
    begun++
    return race.apply(this, args)
  } as Lifetime['race']
  Lifetime.prototype.onAbort = function (this: Lifetime, ...args: Parameters<Lifetime['onAbort']>) {
    begun++
    return onAbort.apply(this, args)
  }
  try {
    await work()
  } finally {
    Object.assign(Lifetime.prototype, { child, race, onAbort })
  }
  return begun
}

/**
 * The writes to a socket (a child's stdin is one) that carry LSP frames while `work` runs, each
 * with the methods of the frames it carries: `_write` for one chunk, `_writev` for chunks corked together.
 */
async function frameWritesBy(work: () => Promise<unknown>): Promise<string[][]> {
  const { _write, _writev } = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>
  const writes: string[][] = []
  const record = (chunks: unknown[]) => {
    const texts = chunks.map((chunk) => String(chunk))
    if (texts.some((text) => text.startsWith('Content-Length:'))) writes.push(texts.map((text) => /"method":"([^"]+)"/.exec(text)?.[1] ?? '(answer)'))
  }
  Object.assign(Socket.prototype, {
    _write(this: Socket, chunk: unknown, ...rest: unknown[]) {
      record([chunk])
      return _write.call(this, chunk, ...rest)
    },
    _writev(this: Socket, chunks: { chunk: unknown }[], ...rest: unknown[]) {
      record(chunks.map((entry) => entry.chunk))
      return _writev.call(this, chunks, ...rest)
    },
  })
  try {
    await work()
  } finally {
    Object.assign(Socket.prototype, { _write, _writev })
  }
  return writes
}

describe('a kept document changed on disk', () => {
  it('is sent didChange, didSave and the pull in one write to the server\'s stdin, not one per message', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { capabilities: SAVING, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } } })
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics()
    expect(await frameWritesBy(diagnostics)).toEqual([['textDocument/diagnostic']])
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    // Three writes before the writer corked the frames of one pass together.
    expect(await frameWritesBy(diagnostics)).toEqual([['textDocument/didChange', 'textDocument/didSave', 'textDocument/diagnostic']])
  })

  it('is sent didChange then didSave with no waiter for their bytes (one per message, then one for both, before)', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { capabilities: SAVING, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } } })
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics()
    const unchanged = await waitersBegunBy(diagnostics)
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    const changed = await waitersBegunBy(diagnostics)
    // Handed to the writer in the call, which settles a notification at once: nothing to wait for.
    expect(changed - unchanged).toBe(0)
    const sent = fakeMessages(rig.entries(), 'in')
      .filter((message) => message.method === 'textDocument/didChange' || message.method === 'textDocument/didSave' || message.method === 'textDocument/diagnostic')
      .map((message) => message.method)
    expect(sent).toEqual(['textDocument/diagnostic', 'textDocument/diagnostic', 'textDocument/didChange', 'textDocument/didSave', 'textDocument/diagnostic'])
  })
})

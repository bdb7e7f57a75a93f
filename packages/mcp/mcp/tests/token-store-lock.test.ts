// The OAuth token store's lock across processes (issue 26 item 8): its holder keeps it fresh, so a
// contender waits past the stale time instead of taking a live holder's lock; a holder that froze
// past it is taken over, then writes nothing and leaves the new holder's lock alone; a token refresh
// that gets no answer gives up at oauth.tokenTimeoutMs and frees the lock. Real processes
// (tests/fixtures/store-contender.mjs), real files; nothing here depends on how fast the machine is:
// each step waits for what the previous one shows.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { eventually } from './fixtures/rig.ts'

const CONTENDER = fileURLToPath(new URL('./fixtures/store-contender.mjs', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-store-lock-'))
const children: ChildProcess[] = []
// The cases run concurrently (each has its own store and processes; the first spends 1.5 × STALE_MS
// just waiting), so what a failed case left running is killed once all are done.
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  rmSync(scratch, { recursive: true, force: true })
})

/** Short, so the cases take seconds, yet well above a loaded machine's event-loop stalls (the holder refreshes every quarter of it). */
const STALE_MS = 3000

interface Contender {
  readonly child: ChildProcess
  /** Every JSON line printed so far. */
  readonly lines: Record<string, unknown>[]
  readonly exited: Promise<void>
}

function contend(args: string[]): Contender {
  const child = spawn(process.execPath, [CONTENDER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  const lines: Record<string, unknown>[] = []
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>)
      buffer = buffer.slice(at + 1)
    }
  })
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  return { child, lines, exited }
}

function freshStore(): { dir: string; store: string; lock: string } {
  const dir = mkdtempSync(join(scratch, 'case-'))
  return { dir, store: join(dir, 'mcp-credentials.json'), lock: join(dir, 'mcp-credentials.json.lock') }
}

const logins = (store: string) => Object.keys((JSON.parse(readFileSync(store, 'utf8')) as { logins: object }).logins).sort()

describe.concurrent('the token store lock', () => {
  it('a live holder keeps its lock fresh: a contender waits past the stale time, then gets its turn', async () => {
    const { dir, store, lock } = freshStore()
    const holder = contend(['hold', store, dir, 'a', String(STALE_MS)])
    await eventually(() => expect(existsSync(join(dir, 'a.holding'))).toBe(true), 60_000)
    const firstMtime = statSync(lock).mtimeMs
    const waiter = contend(['update', store, 'b', String(STALE_MS)])
    // Held half a stale time past the stale time (the holder refreshes every quarter of it): an
    // unrefreshed lock was taken over by then (it was 3 stale times: 4.5 s more of waiting, the same check).
    const heldSince = Date.now()
    await eventually(() => {
      expect(statSync(lock).mtimeMs).toBeGreaterThan(firstMtime)
      expect(Date.now() - heldSince).toBeGreaterThan(1.5 * STALE_MS)
    }, 60_000)
    expect(waiter.lines).toEqual([])
    expect(logins(store)).toEqual(['a'])

    writeFileSync(join(dir, 'a.go'), '')
    await Promise.all([holder.exited, waiter.exited])
    expect(holder.lines).toEqual([{ holding: 'a' }, { wrote: 'a-after' }, { released: 'a' }])
    expect(waiter.lines).toEqual([{ updated: 'b' }])
    expect(logins(store)).toEqual(['a', 'a-after', 'b'])
    expect(existsSync(lock)).toBe(false)
  })

  it('a holder that froze past the stale time is taken over; back, it writes nothing and leaves the new lock alone', async () => {
    const { dir, store, lock } = freshStore()
    const frozen = contend(['hold', store, dir, 'a', String(STALE_MS)])
    await eventually(() => expect(existsSync(join(dir, 'a.holding'))).toBe(true), 60_000)
    frozen.child.kill('SIGSTOP')
    try {
      const next = contend(['hold', store, dir, 'b', String(STALE_MS)])
      await eventually(() => expect(next.lines).toEqual([{ holding: 'b' }]), 60_000)
      const taken = readFileSync(lock, 'utf8')
      frozen.child.kill('SIGCONT')
      writeFileSync(join(dir, 'a.go'), '')
      await frozen.exited
      expect(frozen.lines).toEqual([{ holding: 'a' }, { refused: 'MCP_TOKEN_STORE_LOCKED' }, { released: 'a' }])
      // The lock is still the new holder's, and the frozen one's late write never happened.
      expect(readFileSync(lock, 'utf8')).toBe(taken)
      expect(logins(store)).toEqual(['a', 'b'])
      writeFileSync(join(dir, 'b.go'), '')
      await next.exited
      expect(next.lines).toEqual([{ holding: 'b' }, { wrote: 'b-after' }, { released: 'b' }])
      expect(existsSync(lock)).toBe(false)
    } finally {
      frozen.child.kill('SIGCONT')
    }
  })

  it('a token refresh that gets no answer gives up at oauth.tokenTimeoutMs (MCP_TIMEOUT) and frees the lock', async () => {
    const { store } = freshStore()
    // An authorization server that accepts every request and never answers.
    const silent: Server = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`
      const refresher = contend(['refresh', store, url, '1000'])
      await eventually(() => expect(refresher.lines).toContainEqual({ refreshing: true }), 60_000)
      const waiter = contend(['update', store, 'b', String(STALE_MS)])
      await eventually(() => expect(refresher.lines.length).toBe(2), 60_000)
      await Promise.all([refresher.exited, waiter.exited])
      expect(refresher.lines.at(-1)).toMatchObject({ error: 'MCP_TIMEOUT', message: expect.stringContaining('oauth.tokenTimeoutMs') })
      expect(waiter.lines).toEqual([{ updated: 'b' }])
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })
})

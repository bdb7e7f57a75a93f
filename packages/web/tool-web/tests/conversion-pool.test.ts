import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ForkScope, Plugin } from 'cordis'
import * as fetchHttp from 'dsh-web-fetch-http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ConversionEvent } from '../src/index.ts'
import { capturedLogs } from '../../../../test-support/captured-logs.ts'
import { boot, codeOf, fetchProvider, page as htmlPage, textOf, type Harness } from './harness.ts'

// Issue 31 item 4: conversions run on a small pool (converter processes since issue 27; worker
// threads before), so a worst-case page converting does not hold up the other calls of the host, and
// the call's budget still covers the conversion. Proven by the order of events (the pool's
// diagnostics channel, the calls' answers), never by timing.

/** A real worst case for the converter (bench/web-html.ts's "12 500 paragraphs", scaled): seconds of work. */
const WORST_CASE = `<!doctype html><html><body>${'<p>x</p>'.repeat(500_000)}</body></html>`
const SMALL_HTML = '<!doctype html><html><body><h1>Small</h1><p>A small page.</p></body></html>'

const warnings = capturedLogs()
let host: Harness | undefined
let server: Server | undefined
let events: ConversionEvent[] = []
let waiters: { done: () => boolean; resolve: () => void }[] = []
const listener = (message: unknown) => {
  events.push(message as ConversionEvent)
  const met = waiters.filter((waiter) => waiter.done())
  waiters = waiters.filter((waiter) => !met.includes(waiter))
  for (const waiter of met) waiter.resolve()
}

beforeEach(() => {
  events = []
  waiters = []
  subscribe('dsh-tool-web:conversion', listener)
})

afterEach(async () => {
  await host?.stop()
  host = undefined
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
  unsubscribe('dsh-tool-web:conversion', listener)
})

const count = (event: ConversionEvent['event']) => events.filter((entry) => entry.event === event).length
/** Resolves once `times` events of this kind have been published in the test (counting those already seen). */
const reached = (event: ConversionEvent['event'], times: number) =>
  new Promise<void>((resolve) => (count(event) >= times ? resolve() : waiters.push({ done: () => count(event) >= times, resolve })))
/** The next event of this kind. */
const next = (event: ConversionEvent['event']) => reached(event, count(event) + 1)

async function serving(toolConfig: Record<string, unknown> = {}, options: { subprocess?: boolean } = {}): Promise<{ big: string; small: string; smallText: string }> {
  server = createServer((request, response) => {
    if (request.url === '/big') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(WORST_CASE)
    if (request.url === '/small') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SMALL_HTML)
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('plain small text')
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  // A budget that only a hung test reaches: on a loaded machine (load 23) starting two converter
  // processes and converting 4 MB took more than the default 30 s. The budget test sets its own.
  host = await boot({ cacheTtlMs: 0, fetchTimeoutMs: 300_000, ...toolConfig }, {}, options)
  ;(host.app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, { allowedCidrs: ['127.0.0.1'] })
  await host.app.events.flush()
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { big: `${origin}/big`, small: `${origin}/small`, smallText: `${origin}/text` }
}

/** 'started' once a converter took the page; 'settled' when the call answered without one (converted on the event loop). */
function startedOrSettled(call: Promise<unknown>): Promise<'started' | 'settled'> {
  return Promise.race([next('start').then(() => 'started' as const), call.then(() => 'settled' as const)])
}

describe('conversion off the event loop (item 4)', () => {
  it('while a worst-case page converts, other calls on the same host answer, a small HTML page included', async () => {
    const { big, small, smallText } = await serving()
    const controller = new AbortController()
    let bigAnswered = false
    const bigCall = host!.fetch({ url: big }, controller.signal).finally(() => (bigAnswered = true))
    expect(await startedOrSettled(bigCall)).toBe('started')
    const text = await host!.fetch({ url: smallText })
    expect(textOf(text)).toContain('plain small text')
    const page = await host!.fetch({ url: small })
    expect(textOf(page)).toContain('# Small')
    // Both answered while the worst case was still converting: it has neither answered nor ended.
    expect(bigAnswered).toBe(false)
    expect(count('end')).toBe(0)
    controller.abort()
    expect(codeOf(await bigCall)).toBe('ABORTED')
  })

  it('an aborted conversion kills its converter, the call gets ABORTED, and the pool converts the next page', async () => {
    const { big, small } = await serving({ conversionWorkerMinChars: 0, conversionWorkers: 1 })
    const controller = new AbortController()
    const bigCall = host!.fetch({ url: big }, controller.signal)
    expect(await startedOrSettled(bigCall)).toBe('started')
    const exited = next('exit')
    controller.abort()
    expect(codeOf(await bigCall)).toBe('ABORTED')
    await exited
    expect(count('terminate')).toBe(1)
    // The one slot is free again: a fresh converter converts the next page.
    const page = await host!.fetch({ url: small })
    expect(textOf(page)).toContain('# Small')
    expect(count('spawn')).toBe(2)
    expect(count('end')).toBe(1)
  })

  it('the call budget covers the conversion: an overrun is TOOL_TIMEOUT and its converter is killed', async () => {
    // The page comes from a provider in memory, so the 1.5 s budget is all but whole when the
    // conversion starts (a converter's start alone takes longer). Fetched over loopback, the 4 MB page
    // could use up the budget before any converter took it on a loaded machine (seen at load 25).
    host = await boot({ cacheTtlMs: 0, fetchTimeoutMs: 1_500 })
    host.app.web.registerFetchProvider(fetchProvider(htmlPage(WORST_CASE, 'html', { url: 'https://big.test/' })).provider)
    const call = host.fetch({ url: 'https://big.test/' })
    expect(await startedOrSettled(call)).toBe('started')
    const result = await call
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(count('terminate')).toBe(1)
    expect(count('end')).toBe(0)
  })

  it('unloading the plugin mid-conversion kills every converter; the call fails with a code', async () => {
    const { big, small } = await serving({ conversionWorkerMinChars: 0 })
    const call = host!.fetch({ url: big })
    expect(await startedOrSettled(call)).toBe('started')
    // A second converter converts the small page beside it, and stays idle.
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
    expect(count('spawn')).toBe(2)
    const bothExited = reached('exit', 2)
    host!.toolFork.dispose()
    const result = await call
    expect(result.isError).toBe(true)
    expect(codeOf(result)).toBe('DISPOSED')
    await bothExited
    expect(count('exit')).toBe(count('spawn'))
  })

  it('a page the converter cannot hold in its memory limit is WEB_CONVERSION_FAILED, not a crash of the host', async () => {
    const { big, small } = await serving({ conversionMaxMemoryMb: 16 })
    const result = await host!.fetch({ url: big })
    expect(codeOf(result)).toBe('WEB_CONVERSION_FAILED')
    expect(textOf(result)).toContain('could not be converted')
    // A small page converts on the event loop as ever.
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
  })

  it('a converter killed mid-conversion (a crash, the OOM killer) fails that call with WEB_CONVERSION_FAILED, and a fresh one converts the next page', async () => {
    const { big, small } = await serving({ conversionWorkerMinChars: 0, conversionWorkers: 1 })
    const started = next('start')
    const call = host!.fetch({ url: big })
    await started
    const victim = events.findLast((entry) => entry.event === 'start')!.pid
    process.kill(victim, 'SIGKILL')
    const result = await call
    expect(codeOf(result)).toBe('WEB_CONVERSION_FAILED')
    expect(textOf(result)).toContain('the converter exited (signal SIGKILL)')
    expect(count('terminate')).toBe(0)
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
    const spawned = events.filter((entry) => entry.event === 'spawn').map((entry) => entry.pid)
    expect(spawned).toHaveLength(2)
    expect(spawned[0]).toBe(victim)
    expect(spawned[1]).not.toBe(victim)
  })

  it('small pages convert on the event loop (no converter is started), and conversionWorkers 0 keeps every page there', async () => {
    const { small } = await serving()
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
    expect(count('spawn')).toBe(0)
    await host!.stop()
    host = undefined
    const again = await serving({ conversionWorkers: 0, conversionWorkerMinChars: 0 })
    expect(textOf(await host!.fetch({ url: again.small }))).toContain('# Small')
    expect(count('spawn')).toBe(0)
  })

  it('a converter is a child of ctx.subprocess (DESIGN: the only way a package starts a process): the service counts it and ends it with the host', async () => {
    const { small } = await serving({ conversionWorkerMinChars: 0, conversionWorkers: 1 })
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
    expect(count('spawn')).toBe(1)
    // Idle, it is kept for the next page, and the subprocess service knows it (its group, its shutdown).
    expect(host!.app.subprocess.live).toBe(1)
    const converter = events.find((entry) => entry.event === 'spawn')!.pid
    await host!.app.subprocess.shutdown()
    expect(processAlive(converter)).toBe(false)
  })

  it('a host without dsh-core/subprocess converts every page on the event loop, and says so once at load', async () => {
    const { small } = await serving({ conversionWorkerMinChars: 0, conversionWorkers: 2 }, { subprocess: false })
    expect(textOf(await host!.fetch({ url: small }))).toContain('# Small')
    expect(count('spawn')).toBe(0)
    expect(warnings.filter((line) => line.includes('dsh-core/subprocess is not loaded'))).toHaveLength(1)
  })
})

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

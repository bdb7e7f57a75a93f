import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { Agent } from 'undici'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lazyAgent, settleTeardowns } from '../src/index.ts'

// lazyAgent: a real undici Agent against a loopback server whose open sockets are counted. The
// three HTTP plugins (keyed search, web-fetch-http, an MCP remote transport) make their Agent
// through it; what they rely on is pinned here: nothing made before the first use, one Agent for
// every use, its connections closed with its owner, and no Agent made after that.

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
})

async function loopback(): Promise<{ origin: string; open: Set<Socket> }> {
  const open = new Set<Socket>()
  const server = createServer((_request, response) => response.end('ok'))
  server.on('connection', (socket) => {
    open.add(socket)
    socket.on('close', () => open.delete(socket))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open }
}

async function get(agent: Agent, origin: string): Promise<string> {
  const response = await agent.request({ origin, path: '/', method: 'GET' })
  return response.body.text()
}

/** The owner's coded refusal, as a surface gives its own (WEB_ABORTED, MCP_DISPOSED). */
const unloaded = (): Error => Object.assign(new Error('the test plugin was unloaded'), { code: 'TEST_UNLOADED' })

describe('lazyAgent', () => {
  it('makes nothing before the first use, and one Agent for all uses (also concurrent first ones)', async () => {
    const make = vi.fn(async () => new Agent())
    const agent = lazyAgent(undefined, make, unloaded)
    expect(make).not.toHaveBeenCalled()
    const [a, b] = await Promise.all([agent(), agent()])
    expect(a).toBe(b)
    expect(await agent()).toBe(a)
    expect(make).toHaveBeenCalledTimes(1)
    await agent.close()
  })

  it('close() with no use makes nothing; a use after close is refused and makes nothing', async () => {
    const make = vi.fn(async () => new Agent())
    const agent = lazyAgent(undefined, make, unloaded)
    await agent.close()
    await expect(agent()).rejects.toMatchObject({ code: 'TEST_UNLOADED' })
    expect(make).not.toHaveBeenCalled()
  })

  it('close() destroys the Agent once: its kept connections close', async () => {
    const { origin, open } = await loopback()
    const made = vi.fn(async () => new Agent())
    const agent = lazyAgent(undefined, made, unloaded)
    expect(await get(await agent(), origin)).toBe('ok')
    // Keep-alive: the connection stays open while the Agent lives.
    expect(open.size).toBe(1)
    // Once: a second close (the owner's teardown and a caller's, say) is the same closing.
    const closing = agent.close()
    expect(agent.close()).toBe(closing)
    await closing
    expect((await made.mock.results[0]!.value as Agent).destroyed).toBe(true)
    await vi.waitFor(() => expect(open.size).toBe(0))
  })

  it('with an owner scope: the Agent is destroyed when the plugin unloads (awaited by settleTeardowns)', async () => {
    const { origin, open } = await loopback()
    const app = new Context()
    let agent: ReturnType<typeof lazyAgent<Agent>> | undefined
    const plugin = { name: 'http-user', apply: (ctx: Context) => void (agent = lazyAgent(ctx, async () => new Agent(), unloaded)) }
    const fork = (app.plugin as (plugin: Plugin) => ForkScope)(plugin as unknown as Plugin)
    await app.start()
    expect(await get(await agent!(), origin)).toBe('ok')
    expect(open.size).toBe(1)
    fork.dispose()
    await settleTeardowns(app)
    await vi.waitFor(() => expect(open.size).toBe(0))
    await expect(agent!()).rejects.toMatchObject({ code: 'TEST_UNLOADED', message: 'the test plugin was unloaded' })
    await app.stop()
  })

  it('a making that failed leaves close() nothing to destroy', async () => {
    const agent = lazyAgent(undefined, async (): Promise<Agent> => {
      throw new Error('no undici')
    }, unloaded)
    await expect(agent()).rejects.toThrow('no undici')
    await expect(agent.close()).resolves.toBeUndefined()
  })

  it('a making that failed is not kept: the next use makes the Agent again', async () => {
    const make = vi.fn(async (): Promise<Agent> => {
      if (make.mock.calls.length === 1) throw new Error('no undici')
      return new Agent()
    })
    const agent = lazyAgent(undefined, make, unloaded)
    await expect(agent()).rejects.toThrow('no undici')
    const second = await agent()
    expect(second).toBeInstanceOf(Agent)
    expect(await agent()).toBe(second)
    expect(make).toHaveBeenCalledTimes(2)
    await agent.close()
    expect(second.destroyed).toBe(true)
  })

  it('a use whose making was pending when close() came is refused, not handed the destroyed Agent', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    const agent = lazyAgent(undefined, async () => (await gate, new Agent()), unloaded)
    const using = agent()
    const closing = agent.close()
    expect(agent.closed).toBe(true)
    release()
    await expect(using).rejects.toMatchObject({ code: 'TEST_UNLOADED' })
    await closing
  })
})

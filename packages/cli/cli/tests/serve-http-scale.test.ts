// `dsh serve --http` behind a load balancer (issue 29, the scale test): two replicas of one preset
// behind Debian's nginx (started here on loopback, round robin), each with --auth oauth in front of
// an authorization server of this test's own. 8 SDK clients make 500 calls; both replicas serve; one
// replica is SIGKILLed and the clients' later calls go through the other; restarted on its port, it
// serves again. A client without a token gets 401 naming the metadata.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, ECHO_PLUGIN, killRunning, removeTempDirs, tempDir } from './helpers.ts'
import { freePort, NGINX, startNginx, type Nginx } from '../../../../test-support/nginx.ts'
import { authorizationServer, httpClient, INITIALIZE, post, serveHttp, stopServed, type Served } from './serve-http-support.ts'

const CLIENTS = 8
const CALLS = 500
let nginx: Nginx | undefined

afterEach(async () => {
  await nginx?.stop()
  nginx = undefined
  await stopServed()
  killRunning()
  await removeTempDirs()
})

/** A preset with echo and `whoami`, which answers the serving process's pid. */
async function replicaPreset(): Promise<string> {
  const dir = await tempDir()
  await writeFile(
    join(dir, 'whoami.mjs'),
    `export const name = 'whoami'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'whoami', description: 'The serving process.', parameters: { type: 'object' }, execute: async () => ({ pid: process.pid }) })
}
`,
  )
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO_PLUGIN)}\n- id: whoami\n  name: ./whoami.mjs\n`)
  return preset
}

async function whoami(client: Client): Promise<number> {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false)
  return (result.structuredContent as { pid: number } | undefined)?.pid ?? (JSON.parse((result.content as { text: string }[])[0]!.text) as { pid: number }).pid
}

/** `calls` calls spread over the clients, all at once per client; resolves with the pid that served each. */
async function callAll(clients: readonly Client[], calls: number): Promise<number[]> {
  let next = 0
  const served: number[] = []
  await Promise.all(
    clients.map(async (client) => {
      while (next < calls) {
        next++
        served.push(await whoami(client))
      }
    }),
  )
  return served
}

describe.skipIf(!NGINX)(`dsh serve --http: two replicas behind nginx${NGINX ? '' : ' (skipped: nginx is not installed here; .ci/run installs Debian\'s)'}`, () => {
  it(`${CALLS} calls from ${CLIENTS} clients reach both replicas; a SIGKILLed replica's share goes to the other; restarted, it serves again; no token, 401`, async () => {
    const dir = await tempDir()
    const preset = await replicaPreset()
    const as = await authorizationServer()
    const port = await freePort()
    const front = new URL(`http://127.0.0.1:${port}/mcp`)
    const replicaArgs = ['--preset', preset, '--cwd', dir, '--auth', 'oauth', '--issuer', as.issuer, '--audience', front.href]
    const replicas: Served[] = await Promise.all([serveHttp(replicaArgs), serveHttp(replicaArgs)])
    const ports = replicas.map((replica) => Number(replica.url.port))
    nginx = await startNginx(port, ports)

    const anonymous = await post(front, INITIALIZE)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toContain(`resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`)
    await anonymous.body?.cancel()

    const token = await as.sign({ aud: front.href, scope: 'mcp' })
    // A 2025-11-25 client's session stays on the replica that opened it (nginx keeps 2025-era requests there).
    const legacy = await httpClient(front, 'legacy', { headers: { authorization: `Bearer ${token}` } })
    for (let call = 0; call < 10; call++) expect((await legacy.callTool({ name: 'echo', arguments: { text: `call ${call}` } })).content).toEqual([{ type: 'text', text: `call ${call}` }])
    await legacy.close()
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => httpClient(front, 'auto', { headers: { authorization: `Bearer ${token}` } })))
    expect((await clients[0]!.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'whoami'])
    const pids = replicas.map((replica) => replica.child.pid!)

    const firstHalf = await callAll(clients, CALLS / 2)
    expect(firstHalf).toHaveLength(CALLS / 2)
    for (const pid of pids) expect(firstHalf.filter((served) => served === pid).length, `replica pid ${pid} served`).toBeGreaterThan(0)

    // One replica dies between two calls of the same clients.
    const [killed] = replicas
    killed!.child.kill('SIGKILL')
    await killed!.exited
    const secondHalf = await callAll(clients, CALLS / 2)
    expect(secondHalf).toHaveLength(CALLS / 2)
    expect(new Set(secondHalf)).toEqual(new Set([pids[1]]))

    // Restarted on its port, it is tried again once nginx's fail_timeout passed, and serves.
    const restarted = await serveHttp(replicaArgs, { listen: `127.0.0.1:${ports[0]}` })
    await expect
      .poll(async () => (await callAll(clients, CLIENTS)).includes(restarted.child.pid!), { timeout: 120_000, interval: 200 })
      .toBe(true)
  })
})

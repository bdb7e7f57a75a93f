// `dsh serve --http` behind a load balancer (issue 29, the scale test): two replicas of one preset
// behind Debian's nginx (started here on loopback, round robin), each with --auth oauth in front of
// an authorization server of this test's own. 8 SDK clients make 500 calls; both replicas serve; one
// replica is SIGKILLed and the clients' later calls go through the other; restarted on its port, it
// serves again. A client without a token gets 401 naming the metadata.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, ECHO_PLUGIN, killRunning, removeTempDirs, tempDir } from './helpers.ts'
import { authorizationServer, httpClient, INITIALIZE, post, serveHttp, stopServed, type Served } from './serve-http-support.ts'

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => spawnSync(path, ['-v']).status === 0)
const CLIENTS = 8
const CALLS = 500
let nginx: ChildProcess | undefined

afterEach(async () => {
  if (nginx && nginx.exitCode === null) {
    const gone = new Promise((resolve) => nginx!.once('exit', resolve))
    nginx.kill('SIGTERM')
    await gone
  }
  nginx = undefined
  await stopServed()
  killRunning()
  await removeTempDirs()
})

/** A free loopback port (nginx cannot be told to pick one). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** nginx in the foreground with its files in `dir`, round robin over the replicas, as docs/serve.md sets it up. */
async function startNginx(dir: string, port: number, replicas: readonly number[]): Promise<void> {
  const conf = join(dir, 'nginx.conf')
  const temp = (name: string) => join(dir, name)
  await writeFile(
    conf,
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;
worker_processes 1;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream dsh {
${replicas.map((replica) => `    server 127.0.0.1:${replica} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://dsh;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host localhost;
      proxy_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error http_503 non_idempotent;
      proxy_next_upstream_tries 2;
    }
  }
}
`,
  )
  const child = spawn(NGINX!, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] })
  nginx = child
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  // Up once it answers (the replicas' /healthz through it); a failure guard bounds the wait.
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`)
        return fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status, () => 0)
      },
      { timeout: 60_000, interval: 100 },
    )
    .toBe(200)
}

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
    await startNginx(dir, port, ports)

    const anonymous = await post(front, INITIALIZE)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toContain(`resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`)
    await anonymous.body?.cancel()

    const token = await as.sign({ aud: front.href, scope: 'mcp' })
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

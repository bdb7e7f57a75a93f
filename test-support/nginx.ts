/**
 * Debian's nginx as the load balancer in front of `dsh serve --http` replicas, set up as
 * docs/serve.md shows (2026-07-28 requests round robin, 2025-era ones kept on one replica by client
 * address for their sessions, Host rewritten for loopback-bound replicas, SSE unbuffered,
 * a refused or draining replica skipped). Shared by the scale test and `pnpm bench serve`; nginx is
 * installed by .ci/run, never here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The nginx executable, when one is installed. */
export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => spawnSync(path, ['-v']).status === 0)

/** A free loopback port (nginx cannot be told to pick one). */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

export interface Nginx {
  readonly port: number
  readonly child: ChildProcess
  /** Stops nginx and removes its files. */
  stop(): Promise<void>
}

/** nginx in the foreground on 127.0.0.1:`port`, its files in a temp directory; resolves once it answers `/healthz` through a replica. */
export async function startNginx(port: number, replicas: readonly number[]): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'dsh-nginx-'))
  const file = (name: string) => join(dir, name)
  writeFileSync(
    file('nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;
worker_processes 1;
pid ${file('nginx.pid')};
error_log ${file('error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${file('body')};
  proxy_temp_path ${file('proxy')};
  fastcgi_temp_path ${file('fastcgi')};
  uwsgi_temp_path ${file('uwsgi')};
  scgi_temp_path ${file('scgi')};
  upstream dsh {
${replicas.map((replica) => `    server 127.0.0.1:${replica} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 64;
  }
  upstream dsh_sessions {
    hash $remote_addr consistent;
${replicas.map((replica) => `    server 127.0.0.1:${replica} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 64;
  }
  map $http_mcp_protocol_version $dsh_upstream { "2026-07-28" dsh; default dsh_sessions; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://$dsh_upstream;
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
  const child = spawn(NGINX, ['-p', dir, '-c', file('nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  // A failure guard only: on a loaded machine nginx may take a while to answer.
  for (let waited = 0; ; waited += 100) {
    if (child.exitCode !== null) {
      await stop()
      throw new Error(`nginx exited (${child.exitCode}): ${stderr}`)
    }
    const status = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status, () => 0)
    if (status === 200) return { port, child, stop }
    if (waited > 60_000) {
      await stop()
      throw new Error(`nginx on port ${port} did not answer within 60 s: ${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

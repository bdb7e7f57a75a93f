import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { Client } from '@modelcontextprotocol/client'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { BIN, ROOT } from './helpers.ts'

/** A running `dsh serve --http`: its URL (what it printed), its process, and what it wrote to stderr. */
export interface Served {
  readonly url: URL
  readonly child: ChildProcess
  stderr(): string
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals | null>
}

const started = new Set<ChildProcess>()
const clients: Client[] = []
const authorizationServers: Server[] = []

/**
 * `dsh serve --http <listen> …args` as a real child; resolves once it prints its URL. Rejects with
 * everything it wrote when it exits first. The bound is a failure guard only.
 */
export function serveHttp(args: readonly string[], options: { env?: Record<string, string>; listen?: string } = {}): Promise<Served> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  for (const name of ['INIT_CWD', 'npm_lifecycle_event', 'npm_package_name']) delete env[name]
  const child = spawn(process.execPath, [BIN, 'serve', '--http', options.listen ?? '0', ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  started.add(child)
  let stderr = ''
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dsh serve --http did not print its URL within 240 s:\n${stderr}`)), 240_000)
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
      if (url) {
        clearTimeout(timer)
        resolve({ url: new URL(url), child, stderr: () => stderr, exited })
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`dsh serve --http exited (${code}) before listening:\n${stderr}`))
    })
  })
}

/** An SDK v2 client of one revision over Streamable HTTP ('auto' negotiates 2026-07-28 with dsh). */
export async function httpClient(url: URL, mode: 'auto' | 'legacy', options: { headers?: Record<string, string>; onToolsChanged?: () => void } = {}): Promise<Client> {
  const client = new Client(
    { name: 'dsh-serve-http-test', version: '0' },
    { versionNegotiation: { mode }, ...(options.onToolsChanged ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => options.onToolsChanged?.() } } } : {}) },
  )
  await client.connect(new StreamableHTTPClientTransport(url, options.headers ? { requestInit: { headers: options.headers } } : {}))
  clients.push(client)
  return client
}

/** Closes the clients and kills the servers a test left (only those this file started). */
export async function stopServed(): Promise<void> {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  started.clear()
  await Promise.all(authorizationServers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
}

/** A JSON-RPC POST to the endpoint as a 2025-11-25 client without a session would send it. */
export function post(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })
}

export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } }

/** A loopback authorization server: RFC 8414 metadata and a JWKS, and a signer of access tokens. */
export async function authorizationServer(): Promise<{ issuer: string; sign(claims: Record<string, unknown>, options?: { typ?: string; key?: CryptoKey }): Promise<string>; otherKey: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const other = await generateKeyPair('RS256')
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }
  let issuer = ''
  const server = createServer((request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (request.url === '/.well-known/oauth-authorization-server') {
      send({ issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] })
    } else if (request.url === '/jwks') send({ keys: [jwk] })
    else {
      response.writeHead(404)
      response.end()
    }
  })
  authorizationServers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    otherKey: other.privateKey,
    sign: (claims, options = {}) =>
      new SignJWT({ client_id: 'test-client', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: options.typ ?? 'at+jwt' })
        .setIssuer(typeof claims.iss === 'string' ? claims.iss : issuer)
        .setIssuedAt()
        .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : '5m')
        .setSubject('someone')
        .sign(options.key ?? privateKey),
  }
}


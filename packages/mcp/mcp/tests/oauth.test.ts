// OAuth for remote servers (issue 21): the SDK's client auth against an authorization server and a
// protected MCP server on loopback. The whole login flow followed from the printed URL, refresh
// ahead of expiry on the live transport, a token refused (401) or answered 403 insufficient_scope for a
// scope the login holds (one refresh of ours mends both), a revoked refresh token, a wrong state, the
// token file's mode, and no token anywhere a person or the model can read.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { login } from '../src/oauth/login.ts'
import { rowAuth } from '../src/oauth/row.ts'
import { defaultStorePath, loginKey, TokenStore } from '../src/oauth/store.ts'
import { HttpServerConfig } from '../src/config.ts'
import { FAST_RECONNECT, eventually, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { followAuthorizationUrl, oauthTestHome, type OAuthFixture, type OAuthFixtureOptions } from './fixtures/oauth-server.ts'
import { freePort } from './fixtures/everything-http.ts'
import { consoleWarnings } from './fixtures/console-warnings.ts'

const { fixture, home } = oauthTestHome(stopRigs)

function row(url: string, overrides: Record<string, unknown> = {}): RowInput {
  return { transport: 'streamable-http', serverName: 'hosted', url, startupTimeoutMs: 5000, reconnect: FAST_RECONNECT, ...overrides } as RowInput
}

/** Runs `work` against a loopback server that answers every request 401 with no challenge (an API-key server). */
async function withPlain401Server(work: (url: string) => Promise<void>): Promise<void> {
  const { createServer } = await import('node:http')
  const plain = createServer((_request, response) => response.writeHead(401, { 'content-type': 'text/plain' }).end('API key required'))
  await new Promise<void>((done) => plain.listen(0, '127.0.0.1', done))
  try {
    await work(`http://127.0.0.1:${(plain.address() as { port: number }).port}/mcp`)
  } finally {
    plain.closeAllConnections()
    await new Promise((done) => plain.close(done))
  }
}

/** Logs in the way `dsh mcp login` does, following the printed URL like a browser. */
async function loginFollowing(server: OAuthFixture, overrides: Record<string, unknown> = {}) {
  const config = HttpServerConfig.parse(row(server.url, overrides))
  const session = rowAuth(config, { file: undefined, credentials: undefined })!
  const printed: string[] = []
  const outcome = await login({
    store: session.store,
    settings: session.settings,
    onAuthorizationUrl: (url) => {
      printed.push(url.href)
      void followAuthorizationUrl(url)
    },
  })
  return { outcome, printed, store: session.store, key: session.key }
}

/** A fixture server, a login to it stored, and a rig whose row is connected with that login (a first call answered). */
async function connectedWithLogin(options: OAuthFixtureOptions = {}) {
  const server = await fixture(options)
  const { store, key } = await loginFollowing(server)
  const rig = await startRig()
  await rig.add(row(server.url))
  expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')
  return { server, store, key, rig }
}

/**
 * Two ways the server stops taking the stored token while its login's grant still holds, which one
 * refresh mends: it refuses it before its expiry (401: revoked, or its keys rotated), or answers a
 * call 403 `insufficient_scope` for a scope the login holds (SEP-2350: the token lacks what the
 * grant has; echo needs mcp:tools, which every login here gets).
 */
const REFUSALS = [
  { refused: 'a 401 on a token before its expiry', options: {}, refuse: (server: OAuthFixture) => server.revokeAccessTokens() },
  { refused: 'a 403 insufficient_scope for a scope the login holds', options: { toolScopes: { echo: 'mcp:tools' } }, refuse: (server: OAuthFixture) => server.unscopeAccessTokens() },
] as const

/** Every place a token could leak to: logs, status, tool results and errors. */
async function expectNoToken(server: OAuthFixture, ...texts: string[]): Promise<void> {
  const tokens = [...server.issued, ...server.issued.map((token) => token.replace('at-', 'rt-'))]
  for (const text of texts) for (const token of server.issued) expect(text).not.toContain(token.slice(3))
  expect(tokens.length).toBeGreaterThan(0)
}

describe('OAuth', () => {
  it('needs_auth before a login, then the whole login flow from the printed URL, the row resumes, tokens 0600 and never shown', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(row(server.url))
    // No login yet: the Bearer challenge means "log in", with the command that does it.
    const before = await rig.status('hosted')
    expect(before.state, before.detail).toBe('needs_auth')
    expect(before.detail).toContain('run: dsh mcp login hosted')
    // The server never listed a tool, yet a call to one of its names says what is wrong and how to fix it.
    expect(rig.toolNames().filter((name) => name.startsWith('mcp__hosted__'))).toEqual([])
    const early = await rig.call('mcp__hosted__whoami')
    expect(early.isError && early.error.code, JSON.stringify(early)).toBe('MCP_AUTH_REQUIRED')
    expect(early.isError && early.error.message).toContain('dsh mcp login hosted')

    const { outcome, printed } = await loginFollowing(server)
    expect(printed).toHaveLength(1)
    const authorization = new URL(printed[0]!)
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorization.searchParams.get('state')).toBeTruthy()
    expect(authorization.searchParams.get('resource')).toBe(server.url)
    expect(outcome.scope).toBe('mcp:tools')
    expect(server.registrations).toHaveLength(1)

    // The long-lived row saw the login land in the store and connected on its own.
    await eventually(async () => expect((await rig.status('hosted')).state).toBe('ready'))
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')

    const file = defaultStorePath()
    expect(file.startsWith(home())).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(home()).mode & 0o077).toBe(0)
    const stored = readFileSync(file, 'utf8')
    expect(stored).toContain(server.issued.at(-1))

    const status = await rig.status('hosted')
    await expectNoToken(server, rig.logs.join('\n'), JSON.stringify(status), JSON.stringify(await rig.call('mcp__hosted__whoami')), JSON.stringify(before))
  })

  it('refreshes ahead of expiry, and the live transport sends the new token without reconnecting', async () => {
    const server = await fixture()
    server.accessLifetime = 3600
    const { store, key } = await loginFollowing(server)
    // (The login's own unauthenticated probe for the server's challenge is not the live transport's.)
    const sinceLogin = server.mcpRequests.length
    const rig = await startRig()
    await rig.add(row(server.url))
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')
    const session = server.mcpRequests.at(-1)!.session
    expect(server.grants.map((grant) => grant.type)).toEqual(['authorization_code'])

    // The stored token is about to expire (as if an hour had passed): the next request refreshes first.
    await store.update(key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
    const old = server.issued.at(-1)
    expect(await rig.text('mcp__hosted__echo', { message: 'after refresh' })).toBe('after refresh')
    expect(server.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token'])
    const last = server.mcpRequests.at(-1)!
    expect(last.authorization).toBe(`Bearer ${server.issued.at(-1)}`)
    expect(last.authorization).not.toContain(old)
    expect(last.session).toBe(session)
    expect(server.mcpRequests.slice(sinceLogin).every((request) => request.status === 200)).toBe(true)
    expect((await rig.status('hosted')).detail).not.toMatch(/reconnected/)
    await expectNoToken(server, rig.logs.join('\n'), JSON.stringify(await rig.status('hosted')))
  })

  it('refreshes once for concurrent calls and for a second session sharing the store', async () => {
    const server = await fixture()
    const { store, key } = await loginFollowing(server)
    const first = await startRig()
    const second = await startRig()
    await first.add(row(server.url))
    await second.add(row(server.url))
    await store.update(key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
    const calls = await Promise.all([
      ...[1, 2, 3].map((n) => first.text('mcp__hosted__echo', { message: `a${n}` })),
      ...[1, 2, 3].map((n) => second.text('mcp__hosted__echo', { message: `b${n}` })),
    ])
    expect(calls).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'])
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([{ type: 'refresh_token', status: 200 }])
  })

  it('a revoked refresh token is discarded, not retried: needs_auth with the login command, MCP_AUTH_REQUIRED, tools kept', async () => {
    const { server, store, key, rig } = await connectedWithLogin()
    const tools = rig.toolNames().filter((name) => name.startsWith('mcp__hosted__'))

    server.revokeRefreshTokens()
    await store.update(key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
    const failed = await rig.call('mcp__hosted__echo', { message: 'x' })
    expect(failed.isError && failed.error.code).toBe('MCP_AUTH_REQUIRED')
    await eventually(async () => expect((await rig.status('hosted')).state).toBe('needs_auth'))
    const status = await rig.status('hosted')
    expect(status.detail).toContain('dsh mcp login hosted')
    expect(rig.toolNames().filter((name) => name.startsWith('mcp__hosted__'))).toEqual(tools)
    expect(await rig.errorCode('mcp__hosted__whoami')).toBe('MCP_AUTH_REQUIRED')
    // The dead tokens are gone from the store (the registration stays for the next login); one refresh was tried.
    expect((await store.get(key))?.tokens).toBeUndefined()
    expect((await store.get(key))?.client).toBeDefined()
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([{ type: 'refresh_token', status: 400 }])
    await expectNoToken(server, rig.logs.join('\n'), JSON.stringify(status), JSON.stringify(failed))
  })

  it.each(REFUSALS)('$refused: the token is refreshed once for concurrent calls, under the store\'s lock (no SDK refresh), and the calls go on', async ({ options, refuse }) => {
    const { server, store, key, rig } = await connectedWithLogin(options)
    // An hour before the token expires.
    refuse(server)
    const { value: calls, warned } = await consoleWarnings(() => Promise.all([1, 2, 3].map((n) => rig.call('mcp__hosted__echo', { message: `m${n}` }))))
    expect(calls.map((call) => (call.isError ? `${call.error.code}: ${call.error.message}` : call.content[0]?.text))).toEqual(['m1', 'm2', 'm3'])
    expect(warned).toBe('')
    // One refresh (the rotated refresh token was never presented twice), no authorization request, same row.
    expect(server.grants).toEqual([
      { type: 'authorization_code', status: 200 },
      { type: 'refresh_token', status: 200 },
    ])
    expect(server.authorizationScopes).toHaveLength(1)
    expect((await store.get(key))?.tokens?.access_token).toBe(server.issued.at(-1))
    expect((await rig.status('hosted')).state).toBe('ready')
    expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([])
  })

  it.each(REFUSALS)('$refused, whose refresh is refused too: needs_auth with the login command at once, one coded line, no authorization request, the dead tokens dropped', async ({ options, refuse }) => {
    const { server, store, key, rig } = await connectedWithLogin(options)
    refuse(server)
    server.revokeRefreshTokens()
    const { value: failed, warned } = await consoleWarnings(() => rig.call('mcp__hosted__echo', { message: 'x' }))
    // The SDK was never asked to start an authorization (it said so when it was: "falling back to a
    // new authorization request"), nor did it say it was "retrying authorization" after the refused refresh token.
    expect(warned).not.toMatch(/new authorization request|mcp-sdk/)
    expect(failed.isError && failed.error.code, JSON.stringify(failed)).toBe('MCP_AUTH_REQUIRED')
    expect(failed.isError && failed.error.message).toContain('run: dsh mcp login hosted')
    await eventually(async () => expect((await rig.status('hosted')).state).toBe('needs_auth'))
    const status = await rig.status('hosted')
    expect(status.failure?.code).toBe('MCP_AUTH_REQUIRED')
    expect(status.detail).toContain('dsh mcp login hosted')
    const later = await rig.call('mcp__hosted__whoami')
    expect(later.isError && later.error).toMatchObject({ code: 'MCP_AUTH_REQUIRED', message: 'MCP server hosted needs a login (the server refused the refresh token); run: dsh mcp login hosted' })
    // One line, with the code: not a transport error, a lost connection and a reconnect as well.
    expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([expect.stringMatching(/^\[W\] mcp mcp\(hosted\): MCP server hosted needs a login \(the server refused the refresh token\); run: dsh mcp login hosted \[MCP_AUTH_REQUIRED\]$/)])
    // The refusal was read as one (invalid_grant): the tokens are gone, the registration kept; the
    // authorization server saw one refresh and no new authorization request.
    expect((await store.get(key))?.tokens).toBeUndefined()
    expect((await store.get(key))?.client).toBeDefined()
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([{ type: 'refresh_token', status: 400 }])
    expect(server.authorizationScopes).toHaveLength(1)
    await expectNoToken(server, rig.logs.join('\n'), JSON.stringify(status), JSON.stringify(failed))
  })

  it('a refresh ahead of expiry that kept the token (the authorization server hung) is not what a 401 on that token joins: the refused token is refreshed, never sent again', async () => {
    const server = await fixture()
    const { store, key } = await loginFollowing(server)
    const session = rowAuth(HttpServerConfig.parse(row(server.url, { oauth: { tokenTimeoutMs: 300 } })), { file: undefined, credentials: undefined, store })!
    const refused = (await store.get(key))!.tokens!.access_token
    // The token is close to expiry and already refused by the server; the first refresh gets no answer.
    await store.update(key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
    server.revokeAccessTokens()
    server.stallTokenRequests = 1
    // An expiry refresh (a request's tokens()) is in flight when another request's 401 on that token asks for one.
    const ahead = session.refresh(refused)
    const resend = session.unauthorized('Bearer error="invalid_token"', `Bearer ${refused}`, false)
    // The expiry refresh gave up (oauth.tokenTimeoutMs) and kept the still-valid token; the 401's refresh did not take it.
    expect((await ahead).access_token).toBe(refused)
    const resent = await resend
    expect(resent).not.toBe(`Bearer ${refused}`)
    expect(resent).toBe(`Bearer ${server.issued.at(-1)}`)
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([
      { type: 'refresh_token', status: 0 },
      { type: 'refresh_token', status: 200 },
    ])
    expect((await store.get(key))?.tokens?.access_token).toBe(server.issued.at(-1))
  })

  it('a confidential client refreshes with its secret as its login sent it (client_secret_post), and a refused refresh token is said once, coded, with no SDK warning of an authorization it never starts', async () => {
    const port = await freePort()
    const server = await fixture({ preRegistered: { client_id: 'dsh-ci', redirect_uris: [`http://127.0.0.1:${port}/callback`], client_secret: 'ci-secret' } })
    const config = HttpServerConfig.parse(row(server.url, { oauth: { clientId: 'dsh-ci', clientSecretEnv: 'CI_SECRET', callbackPort: port } }))
    const session = rowAuth(config, { file: undefined, credentials: { resolve: async () => ({ value: 'ci-secret' }) } as never })!
    await login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })
    const first = (await session.store.get(session.key))!.tokens!.access_token
    const { warned } = await consoleWarnings(async () => {
      // Ahead of expiry: the fixture takes the refresh only with the client's secret.
      await session.store.update(session.key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
      const refreshed = await session.refresh(first)
      expect(refreshed.access_token).toBe(server.issued.at(-1))
      expect(refreshed.access_token).not.toBe(first)
      // The server refuses the token and its refresh token: a login is what is left, and the tokens go.
      server.revokeAccessTokens()
      server.revokeRefreshTokens()
      const refused = await session.unauthorized('Bearer error="invalid_token"', `Bearer ${refreshed.access_token}`, false).catch((error: unknown) => error)
      expect(refused).toMatchObject({ message: 'MCP server hosted needs a login (the server refused the refresh token); run: dsh mcp login hosted' })
      expect((await session.store.get(session.key))?.tokens).toBeUndefined()
      expect(server.grants).toEqual([
        { type: 'authorization_code', status: 200 },
        { type: 'refresh_token', status: 200 },
        { type: 'refresh_token', status: 400 },
      ])
    })
    expect(warned).toBe('')
  })

  it('an authorization server that is down (503) is no refused refresh token: the still-valid token serves, the tokens stay, the next refresh works; a refused token is then needs_auth saying the refresh failed', async () => {
    const server = await fixture()
    const { store, key } = await loginFollowing(server)
    const session = rowAuth(HttpServerConfig.parse(row(server.url)), { file: undefined, credentials: undefined, store })!
    const first = (await store.get(key))!.tokens!
    await store.update(key, (record) => ({ ...record!, expiresAt: Date.now() + 5_000 }))
    server.failTokenRequests = 1
    const { warned } = await consoleWarnings(async () => {
      expect((await session.refresh(first.access_token)).access_token).toBe(first.access_token)
      expect((await store.get(key))?.tokens).toEqual(first)
      const next = await session.refresh(first.access_token)
      expect(next.access_token).toBe(server.issued.at(-1))
      expect(next.access_token).not.toBe(first.access_token)
      // Refused, and the authorization server down: a login is asked for, naming the failure (not a refused refresh token).
      server.revokeAccessTokens()
      server.failTokenRequests = 1
      const refused = await session.unauthorized('Bearer error="invalid_token"', `Bearer ${next.access_token}`, false).catch((error: unknown) => error)
      expect(refused).toMatchObject({ message: expect.stringMatching(/^MCP server hosted needs a login \(the server refused the stored access token, and refreshing it failed: the token refresh for hosted failed: HTTP 503: .*\); run: dsh mcp login hosted$/) })
      expect((await store.get(key))?.tokens?.access_token).toBe(next.access_token)
      expect(server.grants.map((grant) => grant.status)).toEqual([200, 503, 200, 503])
    })
    expect(warned).toBe('')
  })

  // A 403 for a held scope refuses the token for that call only: an authorization server that is
  // down fails the call, as for an expired token (a 401'd token is needs_auth then, above).
  it.each([
    { token: 'an expired token', options: {}, ready: (_server: OAuthFixture, store: TokenStore, key: string) => store.update(key, (record) => ({ ...record!, expiresAt: Date.now() - 1_000 })) },
    { token: 'a token answered 403 insufficient_scope for a scope the login holds', options: REFUSALS[1].options, ready: async (server: OAuthFixture) => server.unscopeAccessTokens() },
  ])('$token, whose refresh meets an authorization server that is down: the call fails MCP_CONNECT_FAILED, the tokens stay, the row stays usable, the next call refreshes and goes on', async ({ options, ready }) => {
    const { server, store, key, rig } = await connectedWithLogin(options)
    await ready(server, store, key)
    const before = (await store.get(key))?.tokens
    server.failTokenRequests = 1
    const { value: failed, warned } = await consoleWarnings(() => rig.call('mcp__hosted__echo', { message: 'x' }))
    expect(warned).toBe('')
    expect(failed.isError && failed.error, JSON.stringify(failed)).toMatchObject({ code: 'MCP_CONNECT_FAILED', message: expect.stringContaining('the token refresh for hosted failed: HTTP 503') })
    expect((await store.get(key))?.tokens).toEqual(before)
    expect(await rig.text('mcp__hosted__echo', { message: 'again' })).toBe('again')
    expect(server.grants.filter((grant) => grant.type === 'refresh_token').map((grant) => grant.status)).toEqual([503, 200])
    expect((await rig.status('hosted')).state).toBe('ready')
  })

  it('a 401 on the standalone GET stream marks the row by itself, as a POST\'s does: a header credential is MCP_CREDENTIAL_REJECTED, a stored login needs_auth; one coded line each', async () => {
    const server = await fixture({ refuseStreams: true })
    await loginFollowing(server)
    const token = server.issued.at(-1)!
    const rig = await startRig()
    // The row sends its own credential: the POSTs are taken, the GET stream refused; no call is made.
    // (The stream opens as the tools are listed: the refusal fails that attempt, or the connection just made.)
    await rig.add(row(server.url, { serverName: 'keyed', oauth: false, headers: { Authorization: `Bearer ${token}` } }))
    await eventually(async () => expect((await rig.status('keyed')).state).toBe('unavailable'))
    expect((await rig.status('keyed')).failure).toMatchObject({ code: 'MCP_CREDENTIAL_REJECTED', message: expect.stringContaining('HTTP 401') })
    expect(await rig.errorCode('mcp__keyed__whoami')).toBe('MCP_UNAVAILABLE')
    expect(rig.logs.filter((line) => line.includes('mcp(keyed)'))).toEqual([expect.stringMatching(/^\[E\] mcp mcp\(keyed\): connection (attempt failed|lost): .*HTTP 401.*; not retrying until the row is reloaded \[MCP_CREDENTIAL_REJECTED\]$/)])
    // The stored login: its token is refreshed once, refused again on the stream, and the row needs a login.
    await rig.add(row(server.url))
    await eventually(async () => expect((await rig.status('hosted')).state).toBe('needs_auth'))
    expect((await rig.status('hosted')).failure?.code).toBe('MCP_AUTH_REQUIRED')
    expect(await rig.errorCode('mcp__hosted__whoami')).toBe('MCP_AUTH_REQUIRED')
    expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([expect.stringMatching(/^\[W\] mcp mcp\(hosted\): MCP server hosted needs a login \(the server refused the access token again right after it was refreshed\); run: dsh mcp login hosted \[MCP_AUTH_REQUIRED\]$/)])
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([{ type: 'refresh_token', status: 200 }])
  })

  it('refuses a callback whose state is not the login\'s, and completes with the right one', async () => {
    const server = await fixture()
    const config = HttpServerConfig.parse(row(server.url))
    const session = rowAuth(config, { file: undefined, credentials: undefined })!
    const answers: { status: number; text: string }[] = []
    const outcome = await login({
      store: session.store,
      settings: session.settings,
      onAuthorizationUrl: (url) => {
        void (async () => {
          const forged = new URL(url)
          forged.searchParams.set('state', 'forged-state')
          answers.push(await followAuthorizationUrl(forged))
          answers.push(await followAuthorizationUrl(url))
        })()
      },
    })
    expect(answers[0]!.status).toBe(400)
    expect(answers[0]!.text).toContain('state does not match')
    expect(answers[1]!.status).toBe(200)
    expect(outcome.refusedCallbacks).toBe(1)
    expect((await session.store.get(session.key))?.tokens).toBeDefined()
  })

  it('oauth.resource is the RFC 8707 resource asked for; without it, the one the server\'s metadata names', async () => {
    const server = await fixture()
    const resourceOf = (printed: string[]) => new URL(printed[0]!).searchParams.get('resource')
    expect(resourceOf((await loginFollowing(server)).printed)).toBe(server.url)
    const configured = await loginFollowing(server, { oauth: { resource: 'https://api.example.test/mcp' } })
    expect(resourceOf(configured.printed)).toBe('https://api.example.test/mcp')
  })

  it('a server without OAuth metadata that answers 401 without a Bearer challenge is not a login: MCP_CREDENTIAL_REJECTED, one attempt, no retry', async () => {
    await withPlain401Server(async (url) => {
      const rig = await startRig()
      await rig.add(row(url))
      const status = await rig.status('hosted')
      expect(status.state).toBe('unavailable')
      expect(status.failure).toMatchObject({ code: 'MCP_CREDENTIAL_REJECTED', message: expect.stringContaining('HTTP 401 without an OAuth challenge') })
      expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([expect.stringMatching(/; not retrying until the row is reloaded \[MCP_CREDENTIAL_REJECTED\]$/)])
      expect(rig.logged('retrying in')).toBe(false)
    })
  })

  it('a row that may use OAuth, against a 401 without a Bearer challenge: a coded MCP_CREDENTIAL_REJECTED naming the other credentials, not a login, and no retry', async () => {
    await withPlain401Server(async (url) => {
      const rig = await startRig()
      const fork = await rig.add(row(url, { oauth: {}, required: true }))
      expect(fork.error).toMatchObject({ code: 'MCP_STARTUP_FAILED' })
      expect(String(fork.error.message)).toContain('HTTP 401 without an OAuth challenge')
      expect(fork.error.cause?.code).toBe('MCP_CREDENTIAL_REJECTED')
      expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([expect.stringMatching(/; not retrying until the row is reloaded \[MCP_CREDENTIAL_REJECTED\]$/)])
      expect(rig.logged('retrying in')).toBe(false)
      await rig.remove(fork)
    })
  })

  it('oauth: false never asks for a login; a bearer token and oauth together are refused at load', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(row(server.url, { oauth: false, reconnect: { enabled: false } }))
    expect((await rig.status('hosted')).state).not.toBe('needs_auth')
    expect(() => HttpServerConfig.parse(row(server.url, { oauth: {}, bearerTokenEnvVar: 'TOKEN' }))).toThrow(/oauth sets Authorization/)
  })

  it('writes the store atomically with mode 0600 even where the umask would allow more', async () => {
    const store = new TokenStore(join(home(), 'nested', 'store.json'))
    writeFileSync(join(home(), 'umask-probe'), '')
    await store.update(loginKey('https://example.test/mcp', undefined), () => ({ serverUrl: 'https://example.test/mcp' }))
    expect(statSync(store.path).mode & 0o777).toBe(0o600)
    expect(statSync(join(home(), 'nested')).mode & 0o777).toBe(0o700)
    expect(await store.keys()).toEqual(['https://example.test/mcp *'])
  })
})


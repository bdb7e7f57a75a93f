// A 403 insufficient_scope for a scope the login already holds (SEP-2350: the token is refreshed,
// not a new login asked for), against the loopback OAuth fixture: the refresh is ours (the refresh
// grant, once under the store's lock for every request that saw the 403), never the SDK's; a refused
// refresh token is needs_auth with the dead tokens dropped, as on the 401 path; an authorization
// server that is down refuses nothing.
import { describe, expect, it } from 'vitest'
import { HttpServerConfig } from '../src/config.ts'
import { login } from '../src/oauth/login.ts'
import { rowAuth } from '../src/oauth/row.ts'
import { followAuthorizationUrl, oauthTestHome } from './fixtures/oauth-server.ts'
import { eventually, FAST_RECONNECT, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { consoleWarnings } from './fixtures/console-warnings.ts'

const { fixture } = oauthTestHome(stopRigs)

function row(url: string): RowInput {
  return { transport: 'streamable-http', serverName: 'hosted', url, startupTimeoutMs: 5000, reconnect: FAST_RECONNECT } as RowInput
}

/** A server whose echo needs the scope every login gets (mcp:tools), logged in, and a rig connected to it. */
async function connected() {
  const server = await fixture({ toolScopes: { echo: 'mcp:tools' } })
  const session = rowAuth(HttpServerConfig.parse(row(server.url)), { file: undefined, credentials: undefined })!
  await login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })
  const rig = await startRig()
  await rig.add(row(server.url))
  expect(await rig.text('mcp__hosted__echo', { message: 'first' })).toBe('first')
  // The token stops carrying its scope at the server; the grant behind it still has it.
  server.unscopeAccessTokens()
  return { server, rig, store: session.store, key: session.key }
}


describe('403 insufficient_scope for a scope already granted', () => {
  it('is mended by one refresh of ours for concurrent calls, and the calls go on on the same connection', async () => {
    const { server, rig, store, key } = await connected()
    const { value: calls, warned } = await consoleWarnings(() => Promise.all([1, 2, 3].map((n) => rig.call('mcp__hosted__echo', { message: `m${n}` }))))
    expect(calls.map((call) => (call.isError ? `${call.error.code}: ${call.error.message}` : call.content[0]?.text))).toEqual(['m1', 'm2', 'm3'])
    expect(warned).toBe('')
    expect(server.grants).toEqual([
      { type: 'authorization_code', status: 200 },
      { type: 'refresh_token', status: 200 },
    ])
    expect(server.authorizationScopes).toHaveLength(1)
    expect((await store.get(key))?.tokens?.access_token).toBe(server.issued.at(-1))
    expect((await rig.status('hosted')).state).toBe('ready')
    expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([])
  })

  it('whose refresh token is refused: needs_auth with the login command, one coded line, the dead tokens dropped, no SDK fallback', async () => {
    const { server, rig, store, key } = await connected()
    server.revokeRefreshTokens()
    const { value: failed, warned } = await consoleWarnings(() => rig.call('mcp__hosted__echo', { message: 'x' }))
    expect(warned).toBe('')
    expect(failed.isError && failed.error, JSON.stringify(failed)).toMatchObject({ code: 'MCP_AUTH_REQUIRED', message: expect.stringContaining('run: dsh mcp login hosted') })
    await eventually(async () => expect((await rig.status('hosted')).state).toBe('needs_auth'))
    const message = 'MCP server hosted needs a login (the server refused the refresh token); run: dsh mcp login hosted'
    expect(rig.logs.filter((line) => line.includes('mcp(hosted)'))).toEqual([`[W] mcp mcp(hosted): ${message} [MCP_AUTH_REQUIRED]`])
    expect(await rig.call('mcp__hosted__whoami')).toMatchObject({ isError: true, error: { code: 'MCP_AUTH_REQUIRED', message } })
    // As on the 401 path: the refused tokens are gone, the registration kept; one refresh, no authorization request.
    expect((await store.get(key))?.tokens).toBeUndefined()
    expect((await store.get(key))?.client).toBeDefined()
    expect(server.grants.filter((grant) => grant.type === 'refresh_token')).toEqual([{ type: 'refresh_token', status: 400 }])
    expect(server.authorizationScopes).toHaveLength(1)
  })

  it('with the authorization server down: that call fails MCP_CONNECT_FAILED, the tokens stay, the row serves, the next call refreshes and goes on', async () => {
    const { server, rig, store, key } = await connected()
    const before = (await store.get(key))?.tokens
    server.failTokenRequests = 1
    const { value: failed, warned } = await consoleWarnings(() => rig.call('mcp__hosted__echo', { message: 'x' }))
    expect(warned).toBe('')
    expect(failed.isError && failed.error, JSON.stringify(failed)).toMatchObject({ code: 'MCP_CONNECT_FAILED', message: expect.stringContaining('the token refresh for hosted failed: HTTP 503') })
    expect((await store.get(key))?.tokens).toEqual(before)
    expect((await rig.status('hosted')).state).toBe('ready')
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')
    expect(await rig.text('mcp__hosted__echo', { message: 'again' })).toBe('again')
    expect(server.grants.filter((grant) => grant.type === 'refresh_token').map((grant) => grant.status)).toEqual([503, 200])
  })
})

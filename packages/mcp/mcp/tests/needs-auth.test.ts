// One way into needs_auth: a login found missing when the row connects and one lost mid-session
// (the server refused the token and its refresh) say the same thing the same way — one coded log
// line whose text is the message a call then gets, naming the server once — and status carries it.
import { describe, expect, it } from 'vitest'
import { HttpServerConfig } from '../src/config.ts'
import { login } from '../src/oauth/login.ts'
import { rowAuth } from '../src/oauth/row.ts'
import { followAuthorizationUrl, oauthTestHome } from './fixtures/oauth-server.ts'
import { eventually, FAST_RECONNECT, startRig, stopRigs, type Rig, type RowInput } from './fixtures/rig.ts'

const { fixture } = oauthTestHome(stopRigs)

function row(url: string): RowInput {
  return { transport: 'streamable-http', serverName: 'hosted', url, startupTimeoutMs: 5000, reconnect: FAST_RECONNECT } as RowInput
}

/** The row's log lines, the message of a call made now, and what status says, once the row needs a login. */
async function saidOnceNeedsAuth(rig: Rig) {
  await eventually(async () => expect((await rig.status('hosted')).state).toBe('needs_auth'))
  const call = await rig.call('mcp__hosted__whoami')
  if (!call.isError) throw new Error(`the call succeeded: ${JSON.stringify(call)}`)
  const status = await rig.status('hosted')
  return { lines: rig.logs.filter((line) => line.includes('mcp(hosted)')), code: call.error.code, message: call.error.message, status }
}

describe('needs_auth', () => {
  it('says the same whether the login is missing at connect or lost mid-session: the coded line is the call\'s message, naming the server once', async () => {
    const server = await fixture()
    const missing = await startRig()
    await missing.add(row(server.url))
    const atConnect = await saidOnceNeedsAuth(missing)
    // (Its logger would hear the second rig's row too, and this row connect once the login lands.)
    await missing.stop()

    const session = rowAuth(HttpServerConfig.parse(row(server.url)), { file: undefined, credentials: undefined })!
    await login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })
    const lost = await startRig()
    await lost.add(row(server.url))
    expect(await lost.text('mcp__hosted__whoami')).toBe('you are ada')
    server.revokeAccessTokens()
    server.revokeRefreshTokens()
    const inFlight = await lost.call('mcp__hosted__echo', { message: 'x' })
    const midSession = await saidOnceNeedsAuth(lost)

    expect(atConnect.message).toBe('MCP server hosted needs a login (no login is stored); run: dsh mcp login hosted')
    expect(midSession.message).toBe('MCP server hosted needs a login (the server refused the refresh token); run: dsh mcp login hosted')
    // (The call in flight when the login was lost failed with it, as the tool it called.)
    expect(inFlight.isError && inFlight.error).toMatchObject({ code: 'MCP_AUTH_REQUIRED', message: `echo: ${midSession.message}` })
    for (const said of [atConnect, midSession]) {
      expect(said.code).toBe('MCP_AUTH_REQUIRED')
      expect(said.message.split('MCP server hosted')).toHaveLength(2)
      expect(said.lines).toEqual([`[W] mcp mcp(hosted): ${said.message} [MCP_AUTH_REQUIRED]`])
      expect(said.status.failure).toEqual({ code: 'MCP_AUTH_REQUIRED', message: said.message })
      // (The row's own line: the server it is about is the row.)
      expect(said.status.detail).toMatch(new RegExp(`^${said.message.replace('MCP server hosted ', '').replace(/[()]/g, '\\$&')}; \\d+ tools$`))
    }
  })
})

// OAuth as the MCP conformance suite checks it (issue 28 item 5), against the loopback
// authorization server: a 2025-03-26 server's metadata at its root with an issuer path, the 401
// challenge's resource_metadata and scope, step-up after a 403 insufficient_scope (the next login
// asks for the union), and RFC 9207's `iss` on the callback. The suite's scenarios cover the wire;
// these pin what dsh does with it (the store, the error codes, the next login).
import { describe, expect, it } from 'vitest'
import { HttpServerConfig } from '../src/config.ts'
import { login } from '../src/oauth/login.ts'
import { rowAuth } from '../src/oauth/row.ts'
import { consoleWarnings } from './fixtures/console-warnings.ts'
import { followAuthorizationUrl, oauthTestHome, type OAuthFixture } from './fixtures/oauth-server.ts'
import { FAST_RECONNECT, eventually, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'

const { fixture } = oauthTestHome(stopRigs)

function row(url: string): RowInput {
  return { transport: 'streamable-http', serverName: 'hosted', url, startupTimeoutMs: 5000, reconnect: FAST_RECONNECT } as RowInput
}

/** `dsh mcp login hosted`, with a browser that follows the printed URL. */
async function loginFollowing(server: OAuthFixture) {
  const session = rowAuth(HttpServerConfig.parse(row(server.url)), { file: undefined, credentials: undefined })!
  const outcome = await login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })
  return { outcome, store: session.store, key: session.key }
}

describe('OAuth discovery and scopes as the conformance suite checks them', () => {
  it('a 2025-03-26 server: no protected-resource metadata, the metadata at its root names an issuer path on its origin', async () => {
    const server = await fixture({ legacy: true })
    const { outcome } = await loginFollowing(server)
    expect(outcome.scope).toBe('mcp:tools')
    expect(server.registrations).toHaveLength(1)
    expect(server.grants).toEqual([{ type: 'authorization_code', status: 200 }])
    const rig = await startRig()
    await rig.add(row(server.url))
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')
  })

  it('metadata named only by the 401 challenge is found, and the challenge\'s scope is the one asked for', async () => {
    const server = await fixture({ resourceMetadataPath: '/custom/metadata-for-mcp', challengeScope: 'mcp:read mcp:extra' })
    const { outcome } = await loginFollowing(server)
    expect(server.metadataRequests).toContain('/custom/metadata-for-mcp')
    expect(server.authorizationScopes).toEqual(['mcp:read mcp:extra'])
    expect(outcome.scope).toBe('mcp:read mcp:extra')
  })

  it('a 403 insufficient_scope fails that call with MCP_AUTH_REQUIRED naming the scope; the row stays ready; the next login asks for the union', async () => {
    const server = await fixture({ toolScopes: { echo: 'mcp:write' } })
    await loginFollowing(server)
    expect(server.authorizationScopes).toEqual(['mcp:tools'])
    const rig = await startRig()
    await rig.add(row(server.url))
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')

    const refused = await rig.call('mcp__hosted__echo', { message: 'hi' })
    expect(refused.isError && refused.error.code, JSON.stringify(refused)).toBe('MCP_AUTH_REQUIRED')
    expect(refused.isError && refused.error.message).toContain('mcp:write')
    expect(refused.isError && refused.error.message).toContain('dsh mcp login hosted')
    // Only that call needed more: the connection and its other tools serve on.
    expect((await rig.status('hosted')).state).toBe('ready')
    expect(await rig.text('mcp__hosted__whoami')).toBe('you are ada')

    await loginFollowing(server)
    expect(server.authorizationScopes[1]!.split(' ').sort()).toEqual(['mcp:tools', 'mcp:write'])
    await eventually(async () => expect(await rig.text('mcp__hosted__echo', { message: 'hi' })).toBe('hi'))
  })

  it('RFC 9207: the callback\'s iss is checked — the right issuer logs in, another issuer\'s is refused (MCP_AUTH_FAILED)', async () => {
    const right = await fixture({ iss: 'right' })
    expect((await loginFollowing(right)).outcome.scope).toBe('mcp:tools')

    const wrong = await fixture({ iss: 'wrong' })
    const refused = await loginFollowing(wrong).catch((error: unknown) => error)
    expect((refused as { code?: string }).code, String(refused)).toBe('MCP_AUTH_FAILED')
    expect(String(refused)).toMatch(/issuer/i)
    expect(wrong.grants).toEqual([])
  })
})

describe('oauth.grant: client_credentials (machine to machine)', () => {
  it('client_secret_basic: no login, the row connects and calls with a token it asked for itself; one grant serves every call', async () => {
    const server = await fixture({ machineClient: { clientId: 'robot', secret: 'robot-secret' } })
    process.env.ROBOT_SECRET = 'robot-secret'
    try {
      const rig = await startRig()
      await rig.add({ ...row(server.url), oauth: { grant: 'client_credentials', clientId: 'robot', clientSecretEnv: 'ROBOT_SECRET' } } as RowInput)
      expect((await rig.status('hosted')).state).toBe('ready')
      expect(await rig.text('mcp__hosted__whoami')).toBe('you are robot')
      expect(await rig.text('mcp__hosted__echo', { message: 'again' })).toBe('again')
      expect(server.grants).toEqual([{ type: 'client_credentials', status: 200 }])
      expect(server.registrations).toEqual([])
      expect(rig.logs.join('\n')).not.toContain('robot-secret')
    } finally {
      delete process.env.ROBOT_SECRET
    }
  })

  it('private_key_jwt: the token request carries an ES256 assertion signed with privateKeyEnv\'s key', async () => {
    const { generateKeyPairSync } = await import('node:crypto')
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const server = await fixture({ machineClient: { clientId: 'signer', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() } })
    process.env.SIGNER_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    try {
      const rig = await startRig()
      await rig.add({ ...row(server.url), oauth: { grant: 'client_credentials', clientId: 'signer', privateKeyEnv: 'SIGNER_KEY', signingAlgorithm: 'ES256' } } as RowInput)
      expect(await rig.text('mcp__hosted__whoami')).toBe('you are signer')
      expect(server.grants).toEqual([{ type: 'client_credentials', status: 200 }])
    } finally {
      delete process.env.SIGNER_KEY
    }
  })

  it('refuses at load what cannot work: no clientId, both or neither credential, a key without its algorithm, a login port', () => {
    const parse = (oauth: object) => HttpServerConfig.safeParse({ ...row('https://mcp.example.test/mcp'), oauth })
    expect(parse({ grant: 'client_credentials', clientId: 'a', clientSecretEnv: 'S' }).success).toBe(true)
    const reasons = (oauth: object) => {
      const parsed = parse(oauth)
      return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    }
    expect(reasons({ grant: 'client_credentials', clientSecretEnv: 'S' }).join()).toMatch(/oauth\.clientId: .*needs the client/)
    expect(reasons({ grant: 'client_credentials', clientId: 'a' }).join()).toMatch(/exactly one of clientSecretEnv .* or privateKeyEnv/)
    expect(reasons({ grant: 'client_credentials', clientId: 'a', clientSecretEnv: 'S', privateKeyEnv: 'K', signingAlgorithm: 'ES256' }).join()).toMatch(/exactly one/)
    expect(reasons({ grant: 'client_credentials', clientId: 'a', privateKeyEnv: 'K' }).join()).toMatch(/signingAlgorithm: privateKeyEnv needs the algorithm/)
    expect(reasons({ grant: 'client_credentials', clientId: 'a', clientSecretEnv: 'S', callbackPort: 8123 }).join()).toMatch(/callbackPort: there is no login/)
    expect(reasons({ clientId: 'a', privateKeyEnv: 'K', signingAlgorithm: 'ES256' }).join()).toMatch(/privateKeyEnv: only applies with grant: client_credentials/)
  })
})

describe('authorization-server migration (SEP-2352)', () => {
  it('when the protected-resource metadata names a new authorization server, the next login registers there and never shows it the old client', async () => {
    const server = await fixture()
    const successor = await fixture()
    // One callback port for both logins: the old registration's redirect URI would still fit.
    const port = await freePort()
    const settings = { ...row(server.url), oauth: { callbackPort: port } } as RowInput
    const session = rowAuth(HttpServerConfig.parse(settings), { file: undefined, credentials: undefined })!
    const loginOnce = () => login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })

    await loginOnce()
    expect(server.registrations).toHaveLength(1)
    const first = await session.store.get(session.key)
    expect(first?.client?.client_id).toBe(server.registrations[0]!.client_id)

    server.authorizationServers = [successor.base]
    const outcome = await loginOnce()
    expect(outcome.scope).toBe('mcp:tools')
    expect(successor.registrations).toHaveLength(1)
    expect(server.registrations).toHaveLength(1)
    const second = await session.store.get(session.key)
    expect(second?.client?.client_id).toBe(successor.registrations[0]!.client_id)
    // The SDK binds the registration and the tokens to the issuer that made them.
    expect(second?.client).toMatchObject({ issuer: successor.base })
    expect(second?.tokens).toMatchObject({ issuer: successor.base })
    expect(successor.grants).toEqual([{ type: 'authorization_code', status: 200 }])
  })

  it('a login an older dsh stored without issuer stamps still works: its refresh and the next login use it, stamp it, and the SDK warns of nothing', async () => {
    const server = await fixture()
    const port = await freePort()
    const session = rowAuth(HttpServerConfig.parse({ ...row(server.url), oauth: { callbackPort: port } } as RowInput), { file: undefined, credentials: undefined })!
    const loginOnce = () => login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) })
    await loginOnce()
    /** The stored login as an older dsh wrote it: no `issuer` on the registration or the tokens. */
    const unstamp = () =>
      session.store.update(session.key, (record) => {
        const { issuer: _client, ...client } = record!.client!
        const { issuer: _tokens, ...tokens } = record!.tokens!
        return { ...record!, client, tokens, expiresAt: Date.now() + 5_000 }
      })
    const stamps = async () => {
      const record = await session.store.get(session.key)
      return [record?.client?.issuer, record?.tokens?.issuer]
    }
    const { warned } = await consoleWarnings(async () => {
      await unstamp()
      const refreshed = await session.refresh((await session.store.get(session.key))!.tokens!.access_token)
      expect(refreshed.access_token).toBe(server.issued.at(-1))
      expect(await stamps()).toEqual([server.base, server.base])
      await unstamp()
      expect((await loginOnce()).scope).toBe('mcp:tools')
      expect(await stamps()).toEqual([server.base, server.base])
    })
    expect(warned).toBe('')
    // The same registration served throughout.
    expect(server.registrations).toHaveLength(1)
    expect(server.grants.map((grant) => `${grant.type} ${grant.status}`)).toEqual(['authorization_code 200', 'refresh_token 200', 'authorization_code 200'])
  })

  it('a login with a configured client prints no SEP-2352 warning: the client is stored with its issuer\'s stamp', async () => {
    const port = await freePort()
    const server = await fixture({ preRegistered: { client_id: 'dsh-public', redirect_uris: [`http://127.0.0.1:${port}/callback`] } })
    const session = rowAuth(HttpServerConfig.parse({ ...row(server.url), oauth: { clientId: 'dsh-public', callbackPort: port } } as RowInput), { file: undefined, credentials: undefined })!
    const { warned } = await consoleWarnings(() => login({ store: session.store, settings: session.settings, onAuthorizationUrl: (url) => void followAuthorizationUrl(url) }))
    expect(warned).toBe('')
    expect((await session.store.get(session.key))?.client).toEqual({ client_id: 'dsh-public', issuer: server.base })
  })
})

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

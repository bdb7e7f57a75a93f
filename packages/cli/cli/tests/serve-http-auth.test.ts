// `dsh serve --http --auth` (issue 29 item 3): a shared bearer token from the environment, and an
// OAuth 2.1 resource server (RFC 9728 metadata, RFC 9068 JWT access tokens checked against the
// issuer's JWKS) in front of a loopback authorization server of this test's own, made with jose.
import { afterEach, describe, expect, it } from 'vitest'
import { dsh, ECHO_PRESET, killRunning, oneStderrLine, removeTempDirs } from './helpers.ts'
import { authorizationServer, httpClient, INITIALIZE, post, serveHttp, stopServed } from './serve-http-support.ts'

afterEach(async () => {
  await stopServed()
  killRunning()
  await removeTempDirs()
})

const ECHO = ['--preset', ECHO_PRESET]

describe('dsh serve --http --auth bearer', () => {
  it('accepts a token of --token-env (any of several), refuses none or another with 401; /healthz needs none', async () => {
    const served = await serveHttp([...ECHO, '--auth', 'bearer', '--token-env', 'DSH_TEST_SERVE_TOKENS'], { env: { DSH_TEST_SERVE_TOKENS: 'alpha-token, beta-token' } })
    const missing = await post(served.url, INITIALIZE)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /)
    await missing.body?.cancel()
    const wrong = await post(served.url, INITIALIZE, { authorization: 'Bearer alpha-tokeN' })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"')
    await wrong.body?.cancel()
    for (const mode of ['auto', 'legacy'] as const) {
      const client = await httpClient(served.url, mode, { headers: { authorization: 'Bearer beta-token' } })
      expect((await client.callTool({ name: 'echo', arguments: { text: 'authorised' } })).content).toEqual([{ type: 'text', text: 'authorised' }])
    }
    expect((await fetch(new URL('/healthz', served.url))).status).toBe(200)
    expect(served.stderr()).not.toContain('beta-token')
  })

  it('refuses to start without the variable, and binds beyond loopback with a token', async () => {
    const run = await dsh(['serve', '--http', '0', ...ECHO, '--auth', 'bearer', '--token-env', 'DSH_TEST_NO_SUCH_VAR'])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain('the environment variable DSH_TEST_NO_SUCH_VAR is not set or holds no token')
    const served = await serveHttp([...ECHO, '--auth', 'bearer', '--token-env', 'DSH_TEST_SERVE_TOKENS'], { listen: '0.0.0.0:0', env: { DSH_TEST_SERVE_TOKENS: 'gamma' } })
    expect(served.url.hostname).toBe('0.0.0.0')
    const viaLoopback = new URL(served.url)
    viaLoopback.hostname = '127.0.0.1'
    const client = await httpClient(viaLoopback, 'auto', { headers: { authorization: 'Bearer gamma' } })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo')
  })
})

describe('dsh serve --http --auth oauth', () => {
  it('publishes RFC 9728 metadata, answers 401 pointing at it, and accepts only valid JWT access tokens for its own URL', async () => {
    const as = await authorizationServer()
    const served = await serveHttp([...ECHO, '--auth', 'oauth', '--issuer', as.issuer])
    const metadataUrl = `${served.url.origin}/.well-known/oauth-protected-resource/mcp`
    const anonymous = await post(served.url, INITIALIZE)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`)
    await anonymous.body?.cancel()
    for (const url of [metadataUrl, `${served.url.origin}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(url)
      expect(metadata.status).toBe(200)
      expect(await metadata.json()).toMatchObject({ resource: served.url.href, authorization_servers: [as.issuer], bearer_methods_supported: ['header'] })
    }
    const audience = served.url.href
    const valid = await as.sign({ aud: audience, scope: 'mcp' })
    for (const mode of ['auto', 'legacy'] as const) {
      const client = await httpClient(served.url, mode, { headers: { authorization: `Bearer ${valid}` } })
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo')
      expect((await client.callTool({ name: 'echo', arguments: { text: 'with a token' } })).content).toEqual([{ type: 'text', text: 'with a token' }])
    }
    const refused = {
      'another audience': await as.sign({ aud: 'https://other.example/mcp' }),
      expired: await as.sign({ aud: audience, exp: Math.floor(Date.now() / 1000) - 600 }),
      'another key': await as.sign({ aud: audience }, { key: as.otherKey }),
      'an ID token, not an access token': await as.sign({ aud: audience }, { typ: 'JWT' }),
      'another issuer': await as.sign({ aud: audience, iss: 'https://issuer.example' }),
      'not a JWT': 'opaque-token',
    }
    for (const [what, token] of Object.entries(refused)) {
      const response = await post(served.url, INITIALIZE, { authorization: `Bearer ${token}` })
      expect(response.status, what).toBe(401)
      expect(response.headers.get('www-authenticate'), what).toContain('error="invalid_token"')
      await response.body?.cancel()
    }
  })

  it('a token without a --scope gets 403 insufficient_scope naming it; --audience replaces the default', async () => {
    const as = await authorizationServer()
    const audience = 'https://dsh.team.example/mcp'
    const served = await serveHttp([...ECHO, '--auth', 'oauth', '--issuer', as.issuer, '--audience', audience, '--scope', 'mcp:tools'])
    const narrow = await post(served.url, INITIALIZE, { authorization: `Bearer ${await as.sign({ aud: audience, scope: 'profile' })}` })
    expect(narrow.status).toBe(403)
    expect(narrow.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(narrow.headers.get('www-authenticate')).toContain('scope="mcp:tools"')
    expect(narrow.headers.get('www-authenticate')).toContain('resource_metadata="https://dsh.team.example/.well-known/oauth-protected-resource/mcp"')
    await narrow.body?.cancel()
    const metadata = await (await fetch(`${served.url.origin}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(metadata).toMatchObject({ resource: audience, scopes_supported: ['mcp:tools'] })
    const client = await httpClient(served.url, 'auto', { headers: { authorization: `Bearer ${await as.sign({ aud: audience, scope: 'profile mcp:tools' })}` } })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo')
  })

  it('an issuer over plain http beyond loopback is refused at start', async () => {
    const run = await dsh(['serve', '--http', '0', ...ECHO, '--auth', 'oauth', '--issuer', 'http://login.example.com'])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain('an issuer\'s keys are read over https')
  })
})

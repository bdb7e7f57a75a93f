import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { OAuthSession } from '../src/oauth/session.ts'
import { TokenStore } from '../src/oauth/store.ts'

// A long-lived host waits for `dsh mcp login` by watching the login store's directory. That wait is
// started without anyone awaiting it, so it must never reject: an unhandled rejection ends the host
// (the suite saw one when a test's DSH_HOME was removed under a waiting row).
describe('OAuthSession.waitForLogin', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  function sessionWithStoreAt(path: string): OAuthSession {
    return new OAuthSession(new TokenStore(path), { serverName: 'x', serverUrl: 'http://127.0.0.1:9/mcp', oauth: undefined, clientSecret: undefined, privateKey: undefined, loginCommand: 'dsh mcp login x' })
  }

  it('resolves false and says why when the store directory cannot be made (a file is in its way)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-wait-login-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'home'), 'not a directory')
    const reasons: string[] = []
    const found = await sessionWithStoreAt(join(dir, 'home', 'mcp', 'store.json')).waitForLogin(new AbortController().signal, (reason) => reasons.push(reason))
    expect(found).toBe(false)
    expect(reasons).toHaveLength(1)
    expect(reasons[0]).toContain(`the login store's directory ${join(dir, 'home', 'mcp')} cannot be made`)
  })

  it('resolves false when the watched directory is removed while it waits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-wait-login-'))
    dirs.push(dir)
    const controller = new AbortController()
    const waiting = sessionWithStoreAt(join(dir, 'mcp', 'store.json')).waitForLogin(controller.signal)
    // Whatever the watcher makes of the removal (an error, or no event at all), an abort ends the wait, and nothing rejects.
    await new Promise((resolve) => setTimeout(resolve, 50))
    rmSync(dir, { recursive: true, force: true })
    controller.abort()
    await expect(waiting).resolves.toBe(false)
  })
})

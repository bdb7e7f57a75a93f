// Issue 26 (the http-wire gap): a fetch that fails on the row's URL must not put the URL's
// credentials (userinfo, secret-looking query values) into logs, status or a call's error. They are
// masked the way `dsh mcp get/list` masks URLs (url-secrets.ts, one rule for both).
import { afterEach, describe, expect, it } from 'vitest'
import { maskedUrl } from '../src/url-secrets.ts'
import { startRig, stopRigs } from './fixtures/rig.ts'

afterEach(() => stopRigs())

describe('URL credentials in HTTP failure text', () => {
  it('a URL with userinfo and an api_key: logs, status detail and the call error show *** instead', async () => {
    const rig = await startRig()
    const url = 'http://ada:s3cret-pass@127.0.0.1:9/mcp?api_key=k3y-value&region=eu'
    await rig.add({ transport: 'streamable-http', serverName: 'leaky', url, oauth: false, reconnect: { enabled: false }, startupTimeoutMs: 5000 })
    const status = await rig.status('leaky')
    const failed = await rig.call('mcp__leaky__anything')
    const texts = [rig.logs.join('\n'), JSON.stringify(status), JSON.stringify(failed)]
    expect(texts.join('\n')).toContain('credentials')
    for (const text of texts) {
      expect(text).not.toContain('s3cret-pass')
      expect(text).not.toContain('k3y-value')
    }
    expect(rig.logs.join('\n')).toContain(maskedUrl(url))
    expect(maskedUrl(url)).toBe('http://***:***@127.0.0.1:9/mcp?api_key=***&region=eu')
  })
})

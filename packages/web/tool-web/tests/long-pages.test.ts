import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ForkScope, Plugin } from 'cordis'
import * as fetchHttp from 'dsh-web-fetch-http'
import { afterEach, describe, expect, it } from 'vitest'
import { overlap, referenceText, rustPages, type CorpusPage } from './fixtures/pages/corpus.ts'
import { boot, textOf, type Harness } from './harness.ts'

// Issue 31 item 1: the cap is on what the model reads (the Markdown), after main-content extraction
// on the whole document; before, only the first 100 000 characters of the raw HTML were converted.
// Real long pages (Rust's documentation, tests/fixtures/pages) through the real http provider.
// Converted on the event loop (`conversionWorkers: 0`, the same `runJob` a worker runs): a worker
// started from the sources loads tsx and dsh-core afresh, seconds of CPU that prove nothing here;
// the pool is conversion-pool.test.ts's subject.

let host: Harness | undefined
let server: Server | undefined
afterEach(async () => {
  await host?.stop()
  host = undefined
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

async function serving(page: CorpusPage, toolConfig: Record<string, unknown>): Promise<{ url: string; host: Harness }> {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(page.html)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  // Converting a long page whole takes seconds of CPU; on two loaded cores the default 30 s budget
  // is not a test of anything here.
  host = await boot({ fetchTimeoutMs: 240_000, conversionWorkers: 0, ...toolConfig })
  // The provider's defaults (maxResponseBytes 5 MB, maxBodyChars 100 000) with loopback opened.
  ;(host.app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, { allowedCidrs: ['127.0.0.1'] })
  await host.app.events.flush()
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page.html`, host }
}

const pageNamed = (name: string) => rustPages().find((page) => page.name === name)!
const NOTE = '(Content truncated.'

describe('long pages (item 1)', () => {
  it('an article that runs past 100 000 characters of HTML reaches the model whole, with main content on and off', async () => {
    const page = pageNamed('rust rustc/lints/listing/warn-by-default')
    const { url } = await serving(page, { fetchMaxOutputChars: 1_000_000 })
    const reference = referenceText(page)
    for (const mainContent of [false, true]) {
      const text = textOf(await host!.fetch({ url, mainContent }))
      expect(text, `mainContent ${mainContent}`).not.toContain(NOTE)
      // The page's last lint, 260 000 characters into its HTML.
      expect(text).toMatch(/^## \[while-true\]/m)
      expect(overlap(reference, text).recall, `mainContent ${mainContent}`).toBeGreaterThan(0.97)
    }
  })

  it('with the default caps the Markdown, not the HTML, is cut: the model reads fetchMaxOutputChars of article and the note', async () => {
    const page = pageNamed('rust rustc/lints/listing/warn-by-default')
    const { url } = await serving(page, {})
    const text = textOf(await host!.fetch({ url, mainContent: true }))
    expect(text.length).toBeLessThanOrEqual(200_000)
    expect(text.length).toBeGreaterThan(199_000)
    expect(text.endsWith(`${NOTE} Fetch a more specific URL or section to see the rest.)`)).toBe(true)
  })

  it('a page whose first 140 000 characters are its sidebar: main content is its article', async () => {
    const page = pageNamed('rust std/num/struct.Saturating')
    const { url } = await serving(page, { fetchMaxOutputChars: 20_000 })
    const text = textOf(await host!.fetch({ url, mainContent: true }))
    expect(text).toContain('Provides intentionally-saturating arithmetic on `T`.')
    expect(overlap(referenceText(page), text).precision).toBeGreaterThan(0.95)
  })
})

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dsh, dshIn, json as parse, killRunning, oneStderrLine, removeTempDirs, ROOT, tempDir } from '../../../packages/cli/cli/tests/helpers.ts'
import { fakeSearxng, json, type FakeSearxng } from './fake-searxng.ts'

// The example as an operator uses it: the real `dsh` command, the base preset, the example's
// overlay, and a second overlay pointing the provider at a SearXNG-shaped server on loopback.

const OVERLAY = join(ROOT, 'examples', 'search-provider', 'overlay.yml')

const fakes: FakeSearxng[] = []
afterEach(async () => {
  killRunning()
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
  await removeTempDirs()
})

async function instance(): Promise<FakeSearxng> {
  const fake = await fakeSearxng()
  fakes.push(fake)
  return fake
}

/** `--preset base --config overlay.yml --config <patch>`: the patch sets the row's config for this test. */
async function withInstance(config: Record<string, unknown>): Promise<string[]> {
  const patch = join(await tempDir(), 'instance.yml')
  await writeFile(patch, `- id: web-search-searxng\n  config: ${JSON.stringify(config)}\n`)
  return ['--preset', 'base', '--config', OVERLAY, '--config', patch]
}

describe('dsh with the SearXNG overlay', () => {
  it('web_search is answered by the searxng provider', async () => {
    const fake = await instance()
    const run = await dsh(['call', 'web_search', '{"queries":["cordis"]}', '--json', ...(await withInstance({ baseUrl: fake.baseUrl }))])
    expect(run.code, run.stderr).toBe(0)
    expect(parse(run).value).toEqual({
      sources: [
        { url: 'https://cordis.io/', title: 'Cordis', snippet: 'Meta-framework for modern JavaScript applications.' },
        { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis', publishedAt: '2026-01-02T00:00:00' },
      ],
      truncated: false,
      provider: 'searxng',
    })
    expect(fake.received.map((request) => `${request.url.pathname}${request.url.search}`)).toEqual(['/search?q=cordis&format=json'])
  })

  it('dsh status: a row for searxng from its probe; deepseek is not selected', async () => {
    const fake = await instance()
    const run = await dshIn(['status', '--json', ...(await withInstance({ baseUrl: fake.baseUrl }))])
    expect(run.code, run.stderr).toBe(0)
    const rows = parse<{ capabilities: { surface: string; id: string; state: string; detail: string }[] }>(run).capabilities
    expect(rows.find((row) => row.id === 'search:searxng')).toMatchObject({ surface: 'web', state: 'ready', detail: `SearXNG 2026.1.1 ("fake") at ${fake.baseUrl}: 3 engines enabled` })
    expect(rows.find((row) => row.id === 'search:deepseek-official')?.detail).toMatch(/not selected: searchProvider is "searxng"$/)
    expect(fake.received.map((request) => request.url.pathname)).toEqual(['/config'])
  })

  it('with no instance running, status says unavailable and the preset still boots', async () => {
    const fake = await instance()
    const { baseUrl } = fake
    await fake.close()
    fakes.splice(fakes.indexOf(fake), 1)
    const run = await dshIn(['status', '--json', ...(await withInstance({ baseUrl }))])
    expect(run.code, run.stderr).toBe(0)
    const row = parse<{ capabilities: { id: string; state: string; detail: string }[] }>(run).capabilities.find((entry) => entry.id === 'search:searxng')
    expect(row?.state).toBe('unavailable')
    expect(row?.detail).toMatch(/^cannot reach SearXNG at http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/)
  })

  it('an HTTP failure reaches the caller with its code: exit 1', async () => {
    const fake = await instance()
    fake.reply = json(500, { error: 'boom' })
    const run = await dshIn(['call', 'web_search', '{"queries":["cordis"]}', ...(await withInstance({ baseUrl: fake.baseUrl }))])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('Error: SearXNG answered HTTP 500 (Internal Server Error)\n[WEB_PROVIDER_ERROR]\n')
  })

  it("the provider's own deadline is WEB_SEARCH_TIMEOUT", async () => {
    const fake = await instance()
    fake.reply = () => {}
    const run = await dshIn(['call', 'web_search', '{"queries":["cordis"]}', '--json', ...(await withInstance({ baseUrl: fake.baseUrl, timeoutMs: 300 }))])
    expect(run.code).toBe(1)
    expect(parse(run).error).toMatchObject({ code: 'WEB_SEARCH_TIMEOUT', name: 'WebError', message: 'SearXNG did not answer within 300 ms (timeoutMs)' })
  })

  it('a bad baseUrl fails the boot loudly, naming the row and the field: exit 2', async () => {
    const run = await dshIn(['tools', ...(await withInstance({ baseUrl: 'searx.local' }))])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(
      /^dsh: row "web-search-searxng" \(dsh-example-searxng\) in .*instance\.yml: invalid config: config\.baseUrl: must be the http\(s\) URL of a SearXNG instance, e\.g\. http:\/\/127\.0\.0\.1:8888 \[PRESET_CONFIG_INVALID\]$/,
    )
    expect(run.stdout).toBe('')
  })
})

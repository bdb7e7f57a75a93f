import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { dsh, json, killRunning, removeTempDirs, tempDir } from './helpers.ts'

afterEach(killRunning)
afterAll(removeTempDirs)

const MODULE_LOG = pathToFileURL(join(import.meta.dirname, 'fixtures', 'module-log', 'register.mjs')).href

/** The packages a `dsh` run loaded, from the URL of every module it imported. */
async function loadedPackages(args: readonly string[]): Promise<{ packages: Set<string>; stdout: string }> {
  const log = join(await tempDir(), 'modules.log')
  const run = await dsh(args, { env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${MODULE_LOG}`].filter(Boolean).join(' '), DSH_MODULE_LOG: log } })
  expect(run.code, run.stderr).toBe(0)
  const urls = (await readFile(log, 'utf8')).split('\n').filter(Boolean)
  const packages = new Set(urls.flatMap((url) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(url)
    return match ? [match[1]!] : []
  }))
  return { packages, stdout: run.stdout }
}

describe('dsh loads what the command uses', () => {
  it('dsh tools --preset base loads no MCP SDK, HTTP client, HTML converter or file watcher', async () => {
    const { packages, stdout } = await loadedPackages(['tools', '--json', '--preset', 'base'])
    expect(json<{ tools: { name: string }[] }>({ code: 0, signal: null, stdout, stderr: '' }).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_fetch', 'web_search', 'skill']))
    // The log works: the host's own libraries are in it.
    expect([...packages]).toEqual(expect.arrayContaining(['cordis', 'zod', 'yaml']))
    const heavy = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'undici', 'turndown', '@joplin/turndown-plugin-gfm', 'chokidar', 'smol-toml', 'eventsource']
    expect(heavy.filter((name) => packages.has(name))).toEqual([])
  })
})

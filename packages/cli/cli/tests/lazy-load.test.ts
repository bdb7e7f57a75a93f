import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { holdsYamlParser } from '../../../../test-support/module-log.ts'
import { dsh, json, killRunning, removeTempDirs, tempDir } from './helpers.ts'

afterEach(killRunning)
afterAll(removeTempDirs)

const MODULE_LOG = pathToFileURL(join(import.meta.dirname, 'fixtures', 'module-log', 'register.mjs')).href
const MODULE_LOG_DIR = new URL('.', MODULE_LOG).href
const BUILTIN_LOG = join(import.meta.dirname, 'fixtures', 'module-log', 'builtins.cjs')

/** The URL of every module a `dsh` run loaded. */
async function loadedModules(args: readonly string[]): Promise<{ urls: string[]; stdout: string }> {
  const log = join(await tempDir(), 'modules.log')
  const run = await dsh(args, { env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${MODULE_LOG}`].filter(Boolean).join(' '), DSH_MODULE_LOG: log } })
  expect(run.code, run.stderr).toBe(0)
  const urls = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:') && !url.startsWith(MODULE_LOG_DIR))
  return { urls, stdout: run.stdout }
}

/**
 * The module log of `dsh tools --json --preset base`, run once for the cases that read it: five
 * identical starts (~1.3 s of CPU each with the log hook) showed no more than one does.
 */
let baseTools: Promise<{ urls: string[]; stdout: string }> | undefined
const BASE_TOOLS = ['tools', '--json', '--preset', 'base'] as const

/** `loadedModules(args)`, from the one shared run when `args` is `dsh tools --json --preset base`. */
function modulesOf(args: readonly string[]): Promise<{ urls: string[]; stdout: string }> {
  if (args.join(' ') !== BASE_TOOLS.join(' ')) return loadedModules(args)
  baseTools ??= loadedModules(BASE_TOOLS)
  return baseTools
}

/** The packages a `dsh` run loaded, from the URL of every module it imported. */
async function loadedPackages(args: readonly string[]): Promise<{ packages: Set<string>; stdout: string }> {
  const { urls, stdout } = await modulesOf(args)
  const packages = new Set(urls.flatMap((url) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(url)
    return match ? [match[1]!] : []
  }))
  return { packages, stdout }
}

describe('dsh loads what the command uses', () => {
  it('dsh tools --preset base loads no MCP SDK, HTTP client, HTML converter or file watcher', async () => {
    const { packages, stdout } = await loadedPackages(['tools', '--json', '--preset', 'base'])
    expect(json<{ tools: { name: string }[] }>({ code: 0, signal: null, stdout, stderr: '' }).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_fetch', 'web_search', 'skill']))
    // The log works: the plugin framework is in it.
    expect([...packages]).toContain('cordis')
    // ipaddr.js (CommonJS, scanned for exports by Node's loader) and lru-cache (which loads perf_hooks)
    // serve fetches only: loaded on first use since issue 27 item 5.
    const heavy = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'undici', 'turndown', '@joplin/turndown-plugin-gfm', 'chokidar', 'smol-toml', 'eventsource', 'ipaddr.js', 'lru-cache']
    expect(heavy.filter((name) => packages.has(name))).toEqual([])
  })
  // Issue 27 item 5: the tsc layout loaded about 350 modules for this command (zod's ~100 and
  // yaml's ~70 among them), and Node's module loader was the largest part of the start. The
  // children run the packages bundled as they are published (scripts/bundle.mjs).
  it('dsh tools --preset base loads each dsh package from its bundle, zod and yaml inside dsh-core, and few modules in all', async () => {
    const { urls } = await modulesOf(BASE_TOOLS)
    const workspaceFiles = urls.filter((url) => /\/packages\/[^/]+\/[^/]+\/(?!node_modules\/)/.test(url) || /\/node_modules\/dsh-[^/]+\//.test(url))
    expect(workspaceFiles.length).toBeGreaterThan(0)
    expect(workspaceFiles.filter((url) => !/\/packages\/cli\/cli\/bin\/|\/bundle\//.test(url))).toEqual([])
    expect(urls.filter((url) => /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(zod|yaml)\//.test(url))).toEqual([])
    expect(urls.length).toBeLessThanOrEqual(80)
    // One character past ASCII (a dash in a comment) makes Node hold a whole module as a two-byte string.
    const ours = urls.filter((url) => /\/bundle\//.test(url))
    expect(ours.filter((url) => /[^\x00-\x7f]/.test(readFileSync(fileURLToPath(url), 'utf8')))).toEqual([])
  })

  // Each file is one more module for Node to resolve, read, compile and link: esbuild split
  // dsh-core's code into a chunk per combination of the entries reaching it (26 files for the base
  // preset) and dsh-cli's into six. With dshBundle.rootFirst (scripts/bundle.mjs) the static code
  // of each is one chunk, and only the file defining esbuild's require shim makes a CommonJS require.
  it('dsh tools --preset base loads few files of dsh-core and dsh-cli, and one CommonJS require for their bundles', async () => {
    const { urls } = await modulesOf(BASE_TOOLS)
    // (The repository's preset has no parsed twin, so here dsh-core's YAML parser loads too: not counted.)
    const filesOf = (pkg: string) => urls.filter((url) => new RegExp(`/(packages/${pkg}/${pkg}|node_modules/dsh-${pkg})/bundle/`).test(url) && !/\/yaml-text-[^/]*$/.test(url) && !holdsYamlParser(url))
    // dsh-core: the root, the vendored zod, and the chunks of its code, zod and esbuild's helpers. Its
    // seven plugin entries (one-line modules) are not loaded: the preset loader takes their plugins
    // from the loaded root (src/preset/core-plugins.ts; they were 7 of 11 files).
    expect(filesOf('core').filter((url) => /\/bundle\/[^/]+\/plugin\.js$/.test(url))).toEqual([])
    expect(filesOf('core').length).toBeGreaterThanOrEqual(3)
    expect(filesOf('core').length).toBeLessThanOrEqual(5)
    // dsh-cli: bin.js, the lazily imported main, one chunk
    expect(filesOf('cli').length).toBeLessThanOrEqual(3)
    const requires = [...filesOf('core'), ...filesOf('cli')].filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes('__dshBundleRequire('))
    expect(requires.length).toBe(1)
    // dsh-mcp: only its user-overlay path (dshBundle.standalone), one file rather than the entry and the chunk it shared with dsh-mcp's root
    expect(filesOf('mcp').map((url) => url.slice(url.lastIndexOf('/') + 1))).toEqual(['user-overlay.js'])
  })

  // The terminal prompt (question-prompt.ts, question-form.ts: 10.5 KB of dsh-cli's chunk) answers a
  // server's question during `dsh call` at a terminal; it is imported at the first question
  // (terminal-questioner.ts), so no start loads it, and `dsh call` only when a question comes.
  it('dsh tools and dsh status --preset base load none of the terminal prompt\'s code', async () => {
    for (const args of [['tools', '--json', '--preset', 'base'], ['status', '--json', '--preset', 'base']]) {
      const { urls } = await modulesOf(args)
      const cli = urls.filter((url) => /\/(packages\/cli\/cli|node_modules\/dsh-cli)\/bundle\//.test(url))
      expect(cli.length).toBeGreaterThan(0)
      const texts = cli.map((url) => readFileSync(fileURLToPath(url), 'utf8'))
      // A line of each file: the form's last question, and a field check's answer.
      expect(texts.filter((text) => text.includes('Send these answers to') || text.includes('a whole number is expected'))).toEqual([])
    }
  })

  // dsh-tool-web's converter (18 KB: the DOM walk, cleaning, turndown's rules, the depth scan) was a
  // chunk the root imported for `htmlToMarkdown` and `nestsTooDeep`; they are dsh-tool-web/convert
  // now, and the tools load the converter with their first page.
  it('dsh tools --preset base loads one file of dsh-tool-web, without its converter', async () => {
    const { urls } = await modulesOf(BASE_TOOLS)
    const toolWeb = urls.filter((url) => /\/(packages\/web\/tool-web|node_modules\/dsh-tool-web)\/bundle\//.test(url))
    expect(toolWeb.map((url) => url.slice(url.lastIndexOf('/') + 1))).toEqual(['index.js'])
  })

  // Node compiles a built-in on its first load (they are not in its start-up snapshot): ~1-2 ms of CPU
  // each for these, which only a fetch, a page conversion, a child process or a prompt uses; node:crypto
  // (eighteen modules with its internals) only a new id, a temporary file name or a digest.
  it('dsh tools --preset base loads no Node built-in that only fetching, converting, spawning or prompting uses', async () => {
    const log = join(await tempDir(), 'builtins.log')
    const run = await dsh(['tools', '--json', '--preset', 'base'], { env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require=${BUILTIN_LOG}`].filter(Boolean).join(' '), DSH_BUILTIN_LOG: log } })
    expect(run.code, run.stderr).toBe(0)
    const builtins = (await readFile(log, 'utf8')).split('\n')
    // The log works: the file system is in it.
    expect(builtins).toContain('fs')
    const unused = ['worker_threads', 'zlib', 'dns', 'dns/promises', 'child_process', 'readline', 'readline/promises', 'crypto']
    expect(unused.filter((name) => builtins.includes(name))).toEqual([])
  })

  // zod's 63 other message locales were half of the vendored bundle, parsed on every start.
  it("dsh-core's vendored zod carries English messages only", async () => {
    const vendored = new URL('../../../core/core/bundle/vendor/zod.js', import.meta.url)
    const { z } = (await import(vendored.href)) as typeof import('zod')
    expect(Object.keys(z.locales)).toEqual(['en'])
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe('Invalid input: expected string, received number')
  })
})

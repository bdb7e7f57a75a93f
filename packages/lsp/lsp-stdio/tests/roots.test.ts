// Root markers: a query is served by a server started in the nearest directory at or above the file,
// inside the session workspace, that holds one of the row's markers (else the workspace itself).
// Against the fake server, which logs where it was started and what it was initialised with.
import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from 'cordis'
import FileSystem from 'dsh-core/fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { LspStdioConfig } from '../src/config.ts'
import { RootFinder } from '../src/roots.ts'
import { fakeEvents, fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, fileUrl, isAlive, makeRig, makeWorkspace, rejection, waitFor, type Rig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const GO_MODULES = {
  'go.work': 'go 1.19\n',
  'alpha/go.mod': 'module example.com/alpha\n',
  'alpha/pkg/a.ts': 'export const a = 1\n',
  'beta/go.mod': 'module example.com/beta\n',
  'beta/b.ts': 'export const b = 1\n',
  'loose/c.ts': 'export const c = 1\n',
}

/** Where each server the fake logged was started, in order. */
function startedIn(rig: Rig): string[] {
  return fakeEvents(rig.entries(), 'started').map((event) => event.cwd as string)
}

function rootUris(rig: Rig): unknown[] {
  return fakeMessages(rig.entries(), 'in', 'initialize').map((message) => (message.params as { rootUri: unknown }).rootUri)
}

const ask = (rig: Rig, filePath: string, workspaceRoot = rig.ws) => rig.query('goToDefinition', { filePath, workspaceRoot })

describe('root markers', () => {
  it('each file is served by a server in the nearest directory holding a marker; files without one by the workspace’s', async () => {
    const rig = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.mod'] } })
    await ask(rig, 'alpha/pkg/a.ts')
    await ask(rig, 'beta/b.ts')
    await ask(rig, 'alpha/pkg/a.ts')
    await ask(rig, 'loose/c.ts')
    const roots = [join(rig.ws, 'alpha'), join(rig.ws, 'beta'), rig.ws]
    expect(startedIn(rig)).toEqual(roots)
    expect(rootUris(rig)).toEqual(roots.map(fileUrl))
    const folders = fakeMessages(rig.entries(), 'in', 'initialize').map((message) => (message.params as { workspaceFolders: { uri: string }[] }).workspaceFolders.map((folder) => folder.uri))
    expect(folders).toEqual(roots.map((root) => [fileUrl(root)]))
  })

  it('answers relative to the session workspace, whichever root served them', async () => {
    const target = { uri: 'file:///elsewhere/x.ts', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }
    const rig = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.mod'] }, fake: { results: { 'textDocument/definition': [target] } } })
    const result = await ask(rig, 'beta/b.ts')
    expect(result).toMatchObject({ kind: 'locations', resolvedWorkspaceUri: rig.wsUrl })
    const opened = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((message) => (message.params as { textDocument: { uri: string } }).textDocument.uri)
    expect(opened).toEqual([fileUrl(join(rig.ws, 'beta/b.ts'))])
  })

  it('an earlier marker wins over a nearer later one (go.work over go.mod); names in one list are equal', async () => {
    const prioritised = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.work', 'go.mod'] } })
    await ask(prioritised, 'alpha/pkg/a.ts')
    expect(startedIn(prioritised)).toEqual([prioritised.ws])

    const equal = await makeRig({ files: GO_MODULES, server: { rootMarkers: [['go.work', 'go.mod']] } })
    await ask(equal, 'alpha/pkg/a.ts')
    expect(startedIn(equal)).toEqual([join(equal.ws, 'alpha')])
  })

  it('never looks above the session workspace, and a workspace that holds the marker is its own root', async () => {
    const rig = await makeRig({ files: { 'go.mod': 'module example.com/top\n', 'inner/pkg/a.ts': 'export const a = 1\n' }, server: { rootMarkers: ['go.mod'] } })
    await ask(rig, 'pkg/a.ts', join(rig.ws, 'inner'))
    await ask(rig, 'inner/pkg/a.ts')
    expect(startedIn(rig)).toEqual([join(rig.ws, 'inner'), rig.ws])
  })

  it('a symlinked file is rooted where it really is, and a file outside the workspace is refused before any lookup', async () => {
    const rig = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.mod'] } })
    symlinkSync(join(rig.ws, 'beta/b.ts'), join(rig.ws, 'loose/link.ts'))
    await ask(rig, 'loose/link.ts')
    expect(startedIn(rig)).toEqual([join(rig.ws, 'beta')])
    const outside = makeWorkspace({ 'go.mod': 'module example.com/out\n', 'x.ts': 'export const x = 1\n' })
    expect(await rejection(ask(rig, join(outside, 'x.ts')))).toMatchObject({ code: 'LSP_SOURCE_OUTSIDE_WORKSPACE' })
    expect(startedIn(rig)).toHaveLength(1)
  })

  it('servers of every root share maxServers: the least recently used one makes room', async () => {
    const rig = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.mod'], maxServers: 2 } })
    await ask(rig, 'alpha/pkg/a.ts')
    await ask(rig, 'beta/b.ts')
    await ask(rig, 'loose/c.ts')
    const [alpha, beta, loose] = rig.pids()
    await waitFor(() => !isAlive(alpha!), 'the least recently used server (alpha) to stop')
    expect([beta, loose].map((pid) => isAlive(pid!))).toEqual([true, true])
  })

  it('dsh status names the root and the marker that chose it, and the other roots served', async () => {
    const rig = await makeRig({ files: GO_MODULES, server: { rootMarkers: ['go.mod'] } })
    await ask(rig, 'alpha/pkg/a.ts')
    await ask(rig, 'beta/b.ts')
    const { state, detail } = rig.provider.status()
    expect(state).toBe('ready')
    expect(detail).toContain(`root ${join(rig.ws, 'beta')} (go.mod)`)
    expect(detail).toContain(`also running: ${join(rig.ws, 'alpha')} (go.mod)`)
  })

  it('a workspace symbol query asks the server of every root a file belongs to; roots past maxServers are named unanswered', async () => {
    const symbol = { name: 'found', kind: 12, location: { uri: 'file:///w/x.ts', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } } } }
    const fake = { capabilities: { workspaceSymbolProvider: true }, results: { 'workspace/symbol': [symbol] } }
    const rig = await makeRig({ files: GO_MODULES, fake, server: { rootMarkers: ['go.mod'] } })
    const every = await rig.provider.workspaceSymbols({ query: 'found', workspaceRoot: rig.ws })
    // alpha, beta and the workspace itself (loose/c.ts has no go.mod above it)
    expect(new Set(startedIn(rig))).toEqual(new Set([rig.ws, join(rig.ws, 'alpha'), join(rig.ws, 'beta')]))
    expect(every.symbols.map((found) => found.name)).toEqual(['found', 'found', 'found'])
    expect(every.complete).toBe(true)
    expect(every.unanswered).toBeUndefined()

    const capped = await makeRig({ files: GO_MODULES, fake, server: { rootMarkers: ['go.mod'], maxServers: 1 } })
    const some = await capped.provider.workspaceSymbols({ query: 'found', workspaceRoot: capped.ws })
    expect(some.symbols).toHaveLength(1)
    expect(some.complete).toBe(false)
    expect(some.unanswered?.map((entry) => entry.code)).toEqual(['LSP_CAPACITY', 'LSP_CAPACITY'])
    expect(some.unanswered?.[0]?.providerId).toMatch(/^fake \(/)
  })

  it('refuses a marker that is a path or blank, naming the field', () => {
    for (const marker of ['', 'a/go.mod', '..', '.']) {
      const result = LspStdioConfig.safeParse({ servers: { go: { command: 'gopls', extensionToLanguage: { '.go': 'go' }, rootMarkers: [marker] } } })
      expect(result.success, marker).toBe(false)
      expect(result.error?.issues[0]?.path.slice(0, 3)).toEqual(['servers', 'go', 'rootMarkers'])
    }
  })
})

// Issue 27 item 2: the markers were looked up name by name in every directory from the file up to
// the workspace on every query (a dozen stats for the TypeScript row's six lock files). A directory
// whose own stat is what it was at a settled lookup holds the same entries, so one stat of it does.
describe('root markers, remembered per directory', () => {
  async function finder(settleMs: number) {
    const ws = makeWorkspace({ 'pkg/src/a.ts': 'export const a = 1\n' })
    const app = new Context()
    app.plugin(FileSystem)
    await app.start()
    const fs = app.get('fs')!
    const stats = vi.spyOn(fs, 'lstatBesideProven')
    const roots = new RootFinder(fs, [['go.work'], ['go.mod', 'Cargo.toml', 'package-lock.json']], settleMs)
    const workspace = await fs.workspace(ws)
    const file = join(ws, 'pkg/src/a.ts')
    const signal = new AbortController().signal
    const rootOf = () => roots.rootOf(workspace, file, signal)
    return { ws, rootOf, stats, stop: () => app.stop() }
  }
  // Times no change made now can repeat, whatever the clock's tick (nothing here waits to settle).
  const backdate = (ws: string, seconds: number) => {
    const past = new Date(Date.now() - seconds * 1000)
    for (const dir of [ws, join(ws, 'pkg'), join(ws, 'pkg/src')]) utimesSync(dir, past, past)
  }

  it('an unchanged directory costs one stat, and a marker created in it counts from the next lookup', async () => {
    // Every lookup counts as settled. A settle time of 0 is not enough: backdating a directory sets
    // its ctime to the kernel's clock, which can read a fraction of a millisecond ahead of Date.now()
    // taken just before the lookup (CI saw 15 stats instead of 3).
    const { ws, rootOf, stats, stop } = await finder(Number.NEGATIVE_INFINITY)
    try {
      backdate(ws, 60)
      expect((await rootOf()).path).toBe(ws)
      stats.mockClear()
      expect((await rootOf()).path).toBe(ws)
      // pkg/src, pkg and the workspace: one stat each, no marker looked up.
      expect(stats.mock.calls.length).toBe(3)
      writeFileSync(join(ws, 'pkg/go.mod'), 'module example.com/pkg\n')
      expect(await rootOf()).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
      backdate(ws, 120)
      expect(await rootOf()).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
      rmSync(join(ws, 'pkg/go.mod'))
      expect((await rootOf()).path).toBe(ws)
    } finally {
      await stop()
    }
  })

  it('the directories of the file asked about last are reused only for that file in that workspace (issue 27 item 2)', async () => {
    const ws = makeWorkspace({ 'go.mod': 'module example.com/top\n', 'pkg/src/a.ts': 'a\n', 'pkg/go.mod': 'module example.com/pkg\n', 'other/b.ts': 'b\n', 'other/sub/go.mod': 'module example.com/sub\n', 'other/sub/c.ts': 'c\n' })
    const app = new Context()
    app.plugin(FileSystem)
    await app.start()
    try {
      const fs = app.get('fs')!
      const roots = new RootFinder(fs, [['go.mod']], Number.NEGATIVE_INFINITY)
      const workspace = await fs.workspace(ws)
      const inner = await fs.workspace(join(ws, 'other'))
      const rootOf = (top: typeof workspace, path: string) => roots.rootOf(top, join(ws, path))
      expect(await rootOf(workspace, 'pkg/src/a.ts')).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
      expect(await rootOf(workspace, 'pkg/src/a.ts')).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
      expect(await rootOf(workspace, 'other/b.ts')).toMatchObject({ path: ws, marker: 'go.mod' })
      expect(await rootOf(workspace, 'other/sub/c.ts')).toMatchObject({ path: join(ws, 'other/sub'), marker: 'go.mod' })
      expect(await rootOf(workspace, 'other/b.ts')).toMatchObject({ path: ws, marker: 'go.mod' })
      // The same file, another workspace: looked up below that workspace only (the marker above it does not count).
      expect(await rootOf(inner, 'other/b.ts')).toEqual(inner)
      expect(await rootOf(workspace, 'other/b.ts')).toMatchObject({ path: ws, marker: 'go.mod' })
      expect(await rootOf(workspace, 'pkg/src/a.ts')).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
    } finally {
      await app.stop()
    }
  })

  it('a directory changed less than the settle time before a lookup is looked up again', async () => {
    const { rootOf, stats, stop } = await finder(60_000)
    try {
      await rootOf()
      stats.mockClear()
      await rootOf()
      expect(stats.mock.calls.length).toBe(3 + 3 * 4)
    } finally {
      await stop()
    }
  })

  // Issue 27 item 2: every query (and every change) looked its root up through a dozen promises,
  // each paying the host's async hooks, for what is a few lstats on the event loop.
  it('a warm lookup makes no promise: the root comes back as a value, and still follows a marker created or removed', async () => {
    const { ws, rootOf, stop } = await finder(Number.NEGATIVE_INFINITY)
    try {
      backdate(ws, 60)
      await rootOf()
      const counting = countAsyncInits()
      const warm = rootOf()
      const promises = counting.stop()
      expect(warm).not.toBeInstanceOf(Promise)
      expect(promises).toBe(0)
      expect((warm as { path: string }).path).toBe(ws)
      writeFileSync(join(ws, 'pkg/Cargo.toml'), '[package]\n')
      expect(rootOf()).toMatchObject({ path: join(ws, 'pkg'), marker: 'Cargo.toml' })
      backdate(ws, 120)
      rmSync(join(ws, 'pkg/Cargo.toml'))
      expect(rootOf()).toMatchObject({ path: ws })
    } finally {
      await stop()
    }
  })

  it('a marker that is a symlink is followed (on the thread pool) and counts while its target exists', async () => {
    const { ws, rootOf, stop } = await finder(Number.NEGATIVE_INFINITY)
    try {
      mkdirSync(join(ws, 'elsewhere'))
      writeFileSync(join(ws, 'elsewhere/go.mod'), 'module example.com/x\n')
      symlinkSync(join(ws, 'elsewhere/go.mod'), join(ws, 'pkg/go.mod'))
      const found = rootOf()
      expect(found).toBeInstanceOf(Promise)
      expect(await found).toMatchObject({ path: join(ws, 'pkg'), marker: 'go.mod' })
      rmSync(join(ws, 'elsewhere/go.mod'))
      expect(await rootOf()).toMatchObject({ path: ws })
    } finally {
      await stop()
    }
  })
})

// [PROC] Diagnostics, document and workspace symbols and fileChanged through the provider, against
// the scriptable fake server: the orderings and faults real servers do not produce on cue (issue 22).
// The real servers' answers are pinned in packages/lsp/tool-lsp/tests/real/.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, fileUrl, isAlive, makeRig, makeWorkspace, range, rejection, waitFor, type RigOptions } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const PULL = { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }

function diagnostic(message: string, more: Record<string, unknown> = {}) {
  return { range: range(1, 13, 14), severity: 1, code: 2322, source: 'ts', message, ...more }
}

async function diagnosticsOf(options: RigOptions, filePath = 'a.ts') {
  const rig = await makeRig(options)
  const result = await rig.provider.diagnostics({ filePath, workspaceRoot: rig.ws, languageId: 'typescript' })
  return { rig, result }
}

describe('diagnostics pulled from a server that offers textDocument/diagnostic', () => {
  it('opens the file, pulls, translates (severity words, code, source, related locations), and keeps the file open', async () => {
    const related = { location: { uri: 'file:///elsewhere.ts', range: range(0, 0) }, message: 'declared here' }
    const items = [diagnostic("Type 'number' is not assignable to type 'string'.", { relatedInformation: [related] }), { range: range(2, 0), severity: 4, message: 'unused' }]
    const { rig, result } = await diagnosticsOf({ fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items } } } })
    expect(result).toEqual({
      kind: 'diagnostics',
      uri: fileUrl(join(rig.ws, 'a.ts')),
      resolvedWorkspaceUri: rig.wsUrl,
      complete: true,
      items: [
        { range: range(1, 13, 14), severity: 'error', code: 2322, source: 'ts', message: "Type 'number' is not assignable to type 'string'.", related: [{ uri: 'file:///elsewhere.ts', range: range(0, 0), message: 'declared here' }] },
        { range: range(2, 0), severity: 'hint', message: 'unused', related: [] },
      ],
    })
    const methods = fakeMessages(rig.entries(), 'in').map((message) => message.method).filter((method) => method?.startsWith('textDocument/'))
    expect(methods).toEqual(['textDocument/didOpen', 'textDocument/diagnostic'])
  })

  it('a kept document is brought up to date with didChange (the text read at the request, or told by fileChanged), never opened twice; queries use it as it is', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } } })
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics()
    await diagnostics()
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    await diagnostics()
    await rig.query('hover')
    writeFileSync(join(rig.ws, 'a.ts'), 'three\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    await rig.query('hover', { filePath: 'b.ts' })
    const sent = fakeMessages(rig.entries(), 'in')
      .filter((message) => message.method?.startsWith('textDocument/did') && (message.params as any).textDocument.uri === fileUrl(join(rig.ws, 'a.ts')))
      .map((message) => [message.method, (message.params as any).contentChanges?.[0]?.text ?? (message.params as any).textDocument.text])
    expect(sent).toEqual([
      ['textDocument/didOpen', 'one\n'],
      ['textDocument/didChange', 'two\n'],
      ['textDocument/didChange', 'three\n'],
    ])
    const versions = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as any).textDocument.version)
    expect(versions[1]).toBeGreaterThan(versions[0])
  })

  it('a server that asks for saves (textDocumentSync.save) is sent didSave after each didChange, with the text when it wants it; one that does not gets none', async () => {
    for (const save of [{ includeText: true }, true, undefined]) {
      const capabilities = { ...PULL, textDocumentSync: { openClose: true, change: 1, ...(save === undefined ? {} : { save }) } }
      const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: { capabilities, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } } })
      await rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
      writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
      rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
      await rig.query('hover', { filePath: 'b.ts' })
      const sent = fakeMessages(rig.entries(), 'in')
        .filter((message) => message.method === 'textDocument/didChange' || message.method === 'textDocument/didSave')
        .map((message) => [message.method, (message.params as any).text ?? (message.params as any).contentChanges?.[0]?.text])
      const saved = save === undefined ? [] : [['textDocument/didSave', save === true ? undefined : 'two\n']]
      expect(sent, JSON.stringify(save)).toEqual([['textDocument/didChange', 'two\n'], ...saved])
    }
  })

  it('a kept document is closed when its file is deleted, and the least recently used beyond maxOpenDocuments', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'a\n', 'b.ts': 'b\n' }, server: { maxOpenDocuments: 1 }, fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } } })
    const diagnostics = (filePath: string) => rig.provider.diagnostics({ filePath, workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics('a.ts')
    await diagnostics('b.ts')
    rig.provider.fileChanged({ path: join(rig.ws, 'b.ts'), kind: 'deleted' })
    await rig.query('hover')
    const closed = fakeMessages(rig.entries(), 'in', 'textDocument/didClose').map((message) => (message.params as any).textDocument.uri)
    expect(closed.slice(0, 2)).toEqual([fileUrl(join(rig.ws, 'a.ts')), fileUrl(join(rig.ws, 'b.ts'))])
  })

  it('asks once more when the server cancelled the pull (ServerCancelled)', async () => {
    const { rig, result } = await diagnosticsOf({
      fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } }, errorOnce: { 'textDocument/diagnostic': { code: -32802, message: 'retrigger' } } },
    })
    expect(result.items).toEqual([])
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/diagnostic')).toHaveLength(2)
  })

  it('a report that is not a full one, or an item without a message, is LSP_MALFORMED_RESPONSE', async () => {
    for (const report of [{ kind: 'unchanged', resultId: '1' }, { kind: 'full', items: [{ range: range(0, 0) }] }, { kind: 'full', items: [{ range: range(0, 0), message: 'x', severity: 9 }] }]) {
      const rig = await makeRig({ fake: { capabilities: PULL, results: { 'textDocument/diagnostic': report } } })
      const error = await rejection(rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }))
      expect(error.code, JSON.stringify(report)).toBe('LSP_MALFORMED_RESPONSE')
    }
  })
})

describe('queries on a server that keeps documents (pull diagnostics)', () => {
  const keeping = { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }
  /** The didOpen/didChange/didClose sent for the files, as [method, file name, text]. */
  function lifecycle(rig: Awaited<ReturnType<typeof makeRig>>): [string, string, string | undefined][] {
    return fakeMessages(rig.entries(), 'in')
      .filter((message) => message.method?.startsWith('textDocument/did'))
      .map((message) => {
        const params = message.params as any
        return [message.method!, params.textDocument.uri.slice(rig.wsUrl.length + 1), params.contentChanges?.[0]?.text ?? params.textDocument.text]
      })
  }

  it('two queries on the unchanged file open it once and close it never; an edit on disk, or one told by fileChanged, is sent as didChange', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: keeping })
    await rig.query('hover')
    await rig.query('goToDefinition')
    expect(lifecycle(rig)).toEqual([['textDocument/didOpen', 'a.ts', 'one\n']])
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    await rig.query('findReferences')
    writeFileSync(join(rig.ws, 'a.ts'), 'three\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    await rig.query('hover', { filePath: 'b.ts' })
    await rig.query('hover')
    expect(lifecycle(rig)).toEqual([
      ['textDocument/didOpen', 'a.ts', 'one\n'],
      ['textDocument/didChange', 'a.ts', 'two\n'],
      ['textDocument/didChange', 'a.ts', 'three\n'],
      ['textDocument/didOpen', 'b.ts', 'b\n'],
    ])
    const versions = fakeMessages(rig.entries(), 'in').filter((message) => message.method === 'textDocument/didOpen' || message.method === 'textDocument/didChange').map((message) => (message.params as any).textDocument.version)
    expect([...versions].sort((x, y) => x - y)).toEqual(versions)
    expect(new Set(versions).size).toBe(versions.length)
  })

  it('fileChanged on a kept document reads nothing then: the next request on that server sends the text on disk at its turn', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: keeping })
    await rig.query('hover')
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    // Time for a notice to be told; whatever the machine's speed, the text sent is the one on disk at the next request.
    await new Promise((resolve) => setTimeout(resolve, 300))
    writeFileSync(join(rig.ws, 'a.ts'), 'three\n')
    await rig.query('hover', { filePath: 'b.ts' })
    expect(lifecycle(rig)).toEqual([
      ['textDocument/didOpen', 'a.ts', 'one\n'],
      ['textDocument/didChange', 'a.ts', 'three\n'],
      ['textDocument/didOpen', 'b.ts', 'b\n'],
    ])
    // A file gone by then is closed, and the server told to go back to the disk.
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    rmSync(join(rig.ws, 'a.ts'))
    await rig.query('hover', { filePath: 'b.ts' })
    expect(lifecycle(rig).slice(3)).toEqual([['textDocument/didClose', 'a.ts', undefined]])
    const watched = fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').map((message) => (message.params as any).changes)
    expect(watched).toEqual([[{ uri: fileUrl(join(rig.ws, 'a.ts')), type: 2 }]])
  })

  it('fileChanged with no live server resolves nothing (no thread-pool realpath per notice in every idle provider); the first query reads the disk (issue 27 item 2)', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: keeping })
    const fs = rig.app.get('fs')!
    const resolve = vi.spyOn(fs, 'resolve')
    const contained = vi.spyOn(fs, 'contained')
    try {
      writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
      rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
      expect(resolve).not.toHaveBeenCalled()
      expect(contained).not.toHaveBeenCalled()
    } finally {
      resolve.mockRestore()
      contained.mockRestore()
    }
    await rig.query('hover')
    expect(lifecycle(rig)).toEqual([['textDocument/didOpen', 'a.ts', 'two\n']])
    expect(fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles')).toEqual([])
  })

  it('past maxOpenDocuments the least recently used document is closed; a later query opens it again', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'a\n', 'b.ts': 'b\n' }, server: { maxOpenDocuments: 1 }, fake: keeping })
    await rig.query('hover')
    await rig.query('hover', { filePath: 'b.ts' })
    await rig.query('hover')
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'textDocument/didClose').length === 2, 'both closes')
    expect(lifecycle(rig)).toEqual([
      ['textDocument/didOpen', 'a.ts', 'a\n'],
      ['textDocument/didOpen', 'b.ts', 'b\n'],
      ['textDocument/didClose', 'a.ts', undefined],
      ['textDocument/didOpen', 'a.ts', 'a\n'],
      ['textDocument/didClose', 'b.ts', undefined],
    ])
  })

  it('a server that crashed is replaced by one that is sent the document afresh; a disposed provider shuts its server down cleanly', async () => {
    const rig = await makeRig({ fake: keeping })
    await rig.query('hover')
    const [first] = rig.pids()
    process.kill(first!, 'SIGKILL')
    await waitFor(() => !isAlive(first!), 'the first server gone')
    await rig.query('hover')
    const opens = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen')
    expect(opens).toHaveLength(2)
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/didChange')).toHaveLength(0)
    await rig.provider.disposeAll()
    const second = rig.pids()[1]
    expect(second).toBeDefined()
    expect(fakeMessages(rig.entries(), 'in', 'shutdown')).toHaveLength(1)
    expect(fakeMessages(rig.entries(), 'in', 'exit')).toHaveLength(1)
    expect(rig.entries().some((entry) => (entry as any).event === 'exit-clean')).toBe(true)
  })

  it('a server without pull diagnostics still gets each query\'s document opened and closed', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' } })
    await rig.query('hover')
    await rig.query('hover')
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'textDocument/didClose').length === 2, 'both closes')
    expect(lifecycle(rig).map(([method]) => method)).toEqual(['textDocument/didOpen', 'textDocument/didClose', 'textDocument/didOpen', 'textDocument/didClose'])
  })
})

describe('diagnostics published by the server', () => {
  it('a publication with the opened version answers at once; an older version is not taken for it', async () => {
    const { result } = await diagnosticsOf({
      fake: {
        publishOnOpen: [
          { version: 0, diagnostics: [diagnostic('stale, from an earlier open')] },
          { version: 'open', diagnostics: [diagnostic('fresh')] },
        ],
      },
      server: { diagnosticsWaitMs: 60_000 },
    })
    expect(result.complete).toBe(true)
    expect(result.items.map((item) => item.message)).toEqual(['fresh'])
  })

  it('every open has a version of its own, so the next open is never answered by the last one', async () => {
    const rig = await makeRig({ fake: { publishOnOpen: [{ diagnostics: [] }] } })
    await rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await rig.query('hover')
    await rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    const versions = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((message) => (message.params as any).textDocument.version)
    expect(versions).toEqual([1, 2, 3])
  })

  it('without versions: what arrives before the barrier reply (a late publication for the last close) is ignored; the newest after it answers', async () => {
    const { rig, result } = await diagnosticsOf({
      fake: {
        publishOnOpen: [
          { when: 'open', version: 'none', diagnostics: [] },
          { when: 'barrier', version: 'none', diagnostics: [diagnostic('syntax only')] },
          { when: 'barrier', version: 'none', diagnostics: [diagnostic('syntax'), diagnostic('semantic')] },
        ],
      },
      server: { diagnosticsWaitMs: 60_000 },
    })
    expect(result.complete).toBe(true)
    expect(result.items.map((item) => item.message)).toEqual(['syntax', 'semantic'])
    const barrier = fakeMessages(rig.entries(), 'in', '$/dsh/barrier')
    expect(barrier).toHaveLength(1)
  })

  it('no publication within diagnosticsWaitMs: an empty answer marked complete: false', async () => {
    const { result } = await diagnosticsOf({ server: { diagnosticsWaitMs: 200 } })
    expect(result).toMatchObject({ items: [], complete: false })
  })

  it('a malformed publication for the file is LSP_MALFORMED_RESPONSE', async () => {
    const rig = await makeRig({ fake: { publishOnOpen: [{ diagnostics: [{ message: 'no range' }] }] } })
    const error = await rejection(rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }))
    expect(error.code).toBe('LSP_MALFORMED_RESPONSE')
  })

  it('the source rules of queries hold: a file outside the workspace starts nothing', async () => {
    const rig = await makeRig()
    const outside = makeWorkspace({ 'b.ts': 'x\n' })
    const error = await rejection(rig.provider.diagnostics({ filePath: join(outside, 'b.ts'), workspaceRoot: rig.ws, languageId: 'typescript' }))
    expect(error.code).toBe('LSP_SOURCE_OUTSIDE_WORKSPACE')
    expect(rig.pids()).toEqual([])
  })
})

describe('document symbols', () => {
  const outline = [
    {
      name: 'Circle',
      detail: 'class',
      kind: 5,
      range: range(0, 0, 30),
      selectionRange: range(0, 13, 19),
      children: [{ name: 'area', kind: 6, range: range(1, 2, 20), selectionRange: range(1, 2, 6) }],
    },
  ]

  it('a hierarchical outline keeps its nesting, kinds as words', async () => {
    const rig = await makeRig({ fake: { capabilities: { documentSymbolProvider: true }, results: { 'textDocument/documentSymbol': outline } } })
    const result = await rig.provider.documentSymbols({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    expect(result).toEqual({
      kind: 'documentSymbols',
      uri: fileUrl(join(rig.ws, 'a.ts')),
      resolvedWorkspaceUri: rig.wsUrl,
      complete: true,
      symbols: [
        {
          name: 'Circle',
          detail: 'class',
          kind: 'class',
          range: range(0, 0, 30),
          selectionRange: range(0, 13, 19),
          children: [{ name: 'area', kind: 'method', range: range(1, 2, 20), selectionRange: range(1, 2, 6), children: [] }],
        },
      ],
    })
  })

  it('a flat SymbolInformation list becomes entries without children', async () => {
    const flat = [{ name: 'main', kind: 12, location: { uri: 'file:///w/a.ts', range: range(3, 0, 10) }, containerName: '' }]
    const rig = await makeRig({ fake: { capabilities: { documentSymbolProvider: true }, results: { 'textDocument/documentSymbol': flat } } })
    const result = await rig.provider.documentSymbols({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    expect(result.symbols).toEqual([{ name: 'main', kind: 'function', range: range(3, 0, 10), selectionRange: range(3, 0, 10), children: [] }])
  })

  it('a kind outside 1–26 is LSP_MALFORMED_RESPONSE; a server without documentSymbolProvider is LSP_UNSUPPORTED_OPERATION', async () => {
    const bad = await makeRig({ fake: { capabilities: { documentSymbolProvider: true }, results: { 'textDocument/documentSymbol': [{ ...outline[0], kind: 99 }] } } })
    expect((await rejection(bad.provider.documentSymbols({ filePath: 'a.ts', workspaceRoot: bad.ws, languageId: 'typescript' }))).code).toBe('LSP_MALFORMED_RESPONSE')
    const none = await makeRig()
    const error = await rejection(none.provider.documentSymbols({ filePath: 'a.ts', workspaceRoot: none.ws, languageId: 'typescript' }))
    expect(error.code).toBe('LSP_UNSUPPORTED_OPERATION')
    expect(error.message).toContain('documentSymbols')
  })
})

describe('workspace symbols', () => {
  const matches = [
    { name: 'Circle', kind: 5, location: { uri: 'file:///w/src/shapes.ts', range: range(4, 13, 19) }, containerName: 'shapes' },
    { name: 'circle', kind: 13, location: { uri: 'file:///w/src/main.ts' } },
  ]

  it('asks with one of the workspace’s files open (the first by extension, nearest the root); a location without a range is the file start', async () => {
    const rig = await makeRig({
      files: { 'tool.js': 'x\n', 'src/deep/z.ts': 'z\n', 'src/a.ts': 'a\n', 'node_modules/m/index.ts': 'm\n', '.hidden/h.ts': 'h\n' },
      server: { extensionToLanguage: { '.ts': 'typescript', '.js': 'javascript' } },
      fake: { capabilities: { workspaceSymbolProvider: true }, results: { 'workspace/symbol': matches } },
    })
    const result = await rig.provider.workspaceSymbols({ query: 'circ', workspaceRoot: rig.ws })
    expect(result).toEqual({
      kind: 'workspaceSymbols',
      resolvedWorkspaceUri: rig.wsUrl,
      complete: true,
      symbols: [
        { name: 'Circle', kind: 'class', uri: 'file:///w/src/shapes.ts', range: range(4, 13, 19), containerName: 'shapes' },
        { name: 'circle', kind: 'variable', uri: 'file:///w/src/main.ts', range: range(0, 0, 0) },
      ],
    })
    const opened = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((message) => (message.params as any).textDocument)
    expect(opened.map((document: any) => [document.uri, document.languageId])).toEqual([[fileUrl(join(rig.ws, 'src/a.ts')), 'typescript']])
    expect(fakeMessages(rig.entries(), 'in', 'workspace/symbol').map((message) => message.params)).toEqual([{ query: 'circ' }])
  })

  it('a workspace without a file of the server’s languages answers empty and starts no server', async () => {
    const rig = await makeRig({ files: { 'README.md': '# x\n', 'node_modules/m/index.ts': 'm\n' } })
    const result = await rig.provider.workspaceSymbols({ query: 'x', workspaceRoot: rig.ws })
    expect(result).toEqual({ kind: 'workspaceSymbols', resolvedWorkspaceUri: rig.wsUrl, symbols: [], complete: true })
    expect(rig.pids()).toEqual([])
  })
})

describe('fileChanged', () => {
  it('a running server is told (didChangeWatchedFiles, canonical URI) before the next request’s open', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'a\n', 'real/b.ts': 'b\n' } })
    symlinkSync(join(rig.ws, 'real'), join(rig.ws, 'alias'))
    await rig.query('hover')
    rig.provider.fileChanged({ path: join(rig.ws, 'alias', 'b.ts'), kind: 'changed' })
    rig.provider.fileChanged({ path: join(rig.ws, 'gone.ts'), kind: 'deleted' })
    await rig.query('hover')
    const sent = fakeMessages(rig.entries(), 'in').map((message) => message.method).filter((method) => method === 'workspace/didChangeWatchedFiles' || method === 'textDocument/didOpen')
    expect(sent).toEqual(['textDocument/didOpen', 'workspace/didChangeWatchedFiles', 'workspace/didChangeWatchedFiles', 'textDocument/didOpen'])
    const changes = fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').flatMap((message) => (message.params as any).changes)
    expect(changes).toEqual([
      { uri: fileUrl(join(rig.ws, 'real', 'b.ts')), type: 2 },
      { uri: fileUrl(join(rig.ws, 'gone.ts')), type: 3 },
    ])
  })

  it('a file outside every running server’s workspace, or no server running, sends nothing and starts nothing', async () => {
    const rig = await makeRig()
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    await rig.query('hover')
    const outside = makeWorkspace({ 'o.ts': 'o\n' })
    mkdirSync(join(outside, 'sub'))
    rig.provider.fileChanged({ path: join(outside, 'o.ts'), kind: 'created' })
    await rig.query('hover')
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'textDocument/didClose').length === 2, 'both closes')
    expect(fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles')).toEqual([])
    expect(rig.pids()).toHaveLength(1)
  })
})

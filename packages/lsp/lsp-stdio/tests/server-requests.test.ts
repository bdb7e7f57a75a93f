// L4: what a server may ask its client, answered per protocol.
// [PURE] the answer table; [PROC] the same answers end to end through the fake (serverRequests on didOpen).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ResponseError } from 'vscode-jsonrpc/node'
import { ProgressTracker } from '../src/progress.ts'
import { answerServerRequest, configurationSection } from '../src/server-requests.ts'
import { fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig, range } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const workspace = { path: '/w/project', url: 'file:///w/project' }
const configuration = { python: { analysis: { typeCheckingMode: 'strict', paths: ['a'] } }, top: 1, list: [1, 2] }
const context = (config: unknown = configuration, progress = new ProgressTracker(1_000, 600_000)) => ({ workspace, configuration: config, progress, maxContentBytes: 1_000_000 })

describe('configurationSection [PURE]', () => {
  it('looks a dotted section up in the configured value', () => {
    expect(configurationSection(configuration, 'python.analysis')).toEqual({ typeCheckingMode: 'strict', paths: ['a'] })
    expect(configurationSection(configuration, 'python.analysis.typeCheckingMode')).toBe('strict')
    expect(configurationSection(configuration, 'top')).toBe(1)
  })

  it('answers the whole value without a section, and null for a section that is not there', () => {
    expect(configurationSection(configuration, undefined)).toBe(configuration)
    expect(configurationSection(configuration, '')).toBe(configuration)
    expect(configurationSection(configuration, 42)).toBe(configuration)
    expect(configurationSection(configuration, 'missing')).toBeNull()
    expect(configurationSection(configuration, 'python.missing.deeper')).toBeNull()
    expect(configurationSection(configuration, 'top.below')).toBeNull()
    expect(configurationSection(configuration, 'list.0')).toBeNull()
    expect(configurationSection(null, 'python')).toBeNull()
    expect(configurationSection(null, undefined)).toBeNull()
  })
})

describe('answerServerRequest [PURE]', () => {
  it('workspace/configuration: one answer per item, by section', () => {
    const items = [{ section: 'python.analysis' }, { section: 'nope' }, {}, { scopeUri: 'file:///w/project/a.py' }, null]
    expect(answerServerRequest('workspace/configuration', { items }, context())).toEqual([
      { typeCheckingMode: 'strict', paths: ['a'] },
      null,
      configuration,
      configuration,
      configuration,
    ])
    expect(answerServerRequest('workspace/configuration', {}, context())).toEqual([])
    expect(answerServerRequest('workspace/configuration', undefined, context())).toEqual([])
    expect(answerServerRequest('workspace/configuration', { items: [{ section: 'x' }] }, context(null))).toEqual([null])
  })

  it('workspace/workspaceFolders: exactly the one workspace folder', () => {
    expect(answerServerRequest('workspace/workspaceFolders', null, context())).toEqual([{ uri: 'file:///w/project', name: 'workspace' }])
  })

  it('workspace/applyEdit is declined with applied:false (never applied)', () => {
    const answer = answerServerRequest('workspace/applyEdit', { edit: { changes: {} } }, context()) as { applied: boolean; failureReason?: string }
    expect(answer.applied).toBe(false)
    expect(answer.failureReason).toMatch(/read-only/)
  })

  it('window/showMessageRequest → null, window/showDocument → success:false', () => {
    expect(answerServerRequest('window/showMessageRequest', { type: 1, message: 'pick', actions: [{ title: 'A' }] }, context())).toBeNull()
    expect(answerServerRequest('window/showDocument', { uri: 'https://example.com' }, context())).toEqual({ success: false })
  })

  it('refresh requests and capability (un)registration are acknowledged with null', () => {
    for (const method of [
      'workspace/semanticTokens/refresh',
      'workspace/codeLens/refresh',
      'workspace/inlayHint/refresh',
      'workspace/inlineValue/refresh',
      'workspace/diagnostic/refresh',
      'workspace/foldingRange/refresh',
      'workspace/textDocumentContent/refresh',
      'client/registerCapability',
      'client/unregisterCapability',
    ]) {
      expect(answerServerRequest(method, undefined, context())).toBeNull()
    }
  })

  it('window/workDoneProgress/create → null and starts tracking the token', () => {
    const progress = new ProgressTracker(1_000, 600_000)
    expect(answerServerRequest('window/workDoneProgress/create', { token: 'tok' }, context(configuration, progress))).toBeNull()
    expect(progress.busy).toBe(true)
    const other = new ProgressTracker(1_000, 600_000)
    expect(answerServerRequest('window/workDoneProgress/create', { token: { bad: 1 } }, context(configuration, other))).toBeNull()
    expect(other.busy).toBe(false)
  })

  // A server asks for a document it will not read itself (the json row's schemas, untrusted; the
  // yaml row's http(s) ones): a file inside the server's directory only, symlinks resolved.
  it('vscode/content: a file inside the directory; outside, through a symlink, or not a file: refused', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-content-')))
    try {
      mkdirSync(join(root, 'repo'))
      writeFileSync(join(root, 'repo', 'schema.json'), '{"type":"object"}')
      writeFileSync(join(root, 'secret.json'), '{"enum":["SECRET"]}')
      symlinkSync(join(root, 'secret.json'), join(root, 'repo', 'link.json'))
      const ask = (uri: unknown) => answerServerRequest('vscode/content', [uri], { ...context(), workspace: { path: join(root, 'repo'), url: pathToFileURL(join(root, 'repo')).href }, maxContentBytes: 100 })
      await expect(ask(pathToFileURL(join(root, 'repo', 'schema.json')).href)).resolves.toBe('{"type":"object"}')
      for (const uri of [pathToFileURL(join(root, 'secret.json')).href, pathToFileURL(join(root, 'repo', 'link.json')).href, pathToFileURL(join(root, 'repo', '..', 'secret.json')).href]) {
        await expect(ask(uri)).rejects.toMatchObject({ code: -32600, message: expect.stringContaining(`is outside ${join(root, 'repo')}`) })
      }
      await expect(ask('http://127.0.0.1:1/schema.json')).rejects.toMatchObject({ message: expect.stringContaining('only a file inside the workspace is read') })
      await expect(ask(pathToFileURL(join(root, 'repo', 'missing.json')).href)).rejects.toMatchObject({ message: expect.stringContaining('cannot be found (ENOENT)') })
      mkdirSync(join(root, 'repo', 'sub'))
      await expect(ask(pathToFileURL(join(root, 'repo', 'sub')).href)).rejects.toMatchObject({ message: expect.stringContaining('not a regular file') })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('anything else is MethodNotFound', () => {
    const answer = answerServerRequest('workspace/executeCommand', {}, context())
    expect(answer).toBeInstanceOf(ResponseError)
    expect((answer as ResponseError<unknown>).code).toBe(-32601)
    expect((answer as ResponseError<unknown>).message).toBe('unsupported server request: workspace/executeCommand')
  })
})

describe('server requests end to end [PROC]', () => {
  const definition = [{ uri: 'file:///elsewhere/b.ts', range: range(3, 4) }]
  const serverRequests = [
    { method: 'workspace/configuration', params: { items: [{ section: 'fake.sub' }, { section: 'fake.missing' }, {}] } },
    { method: 'workspace/workspaceFolders' },
    { method: 'workspace/applyEdit', params: { edit: { changes: {} } } },
    { method: 'window/showMessageRequest', params: { type: 3, message: 'pick one', actions: [{ title: 'A' }] } },
    { method: 'workspace/semanticTokens/refresh' },
    { method: 'workspace/diagnostic/refresh' },
    { method: 'client/registerCapability', params: { registrations: [] } },
    { method: 'fake/unknownRequest', params: {} },
  ]

  it('answers each server request per protocol while the query still succeeds (103–106)', async () => {
    const rig = await makeRig({
      fake: {
        serverRequests,
        serverNotifications: [
          { method: 'window/logMessage', params: { type: 3, message: 'hello' } },
          { method: 'textDocument/publishDiagnostics', params: { uri: 'file:///x', diagnostics: [] } },
        ],
        results: { 'textDocument/definition': definition },
      },
      server: { configuration: { fake: { sub: { enabled: true } } } },
    })
    const result = await rig.query('goToDefinition')
    expect(result).toEqual({ kind: 'locations', locations: definition, resolvedWorkspaceUri: rig.wsUrl, complete: true })

    const entries = await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in').filter((m) => m.responseTo).length === serverRequests.length)
    const answers = new Map(fakeMessages(entries, 'in').filter((m) => m.responseTo).map((m) => [m.responseTo, m]))
    expect(answers.get('workspace/configuration')?.result).toEqual([{ enabled: true }, null, { fake: { sub: { enabled: true } } }])
    expect(answers.get('workspace/workspaceFolders')?.result).toEqual([{ uri: rig.wsUrl, name: 'workspace' }])
    expect(answers.get('workspace/applyEdit')?.result).toMatchObject({ applied: false })
    expect(answers.get('window/showMessageRequest')).toMatchObject({ result: null })
    expect(answers.get('workspace/semanticTokens/refresh')).toMatchObject({ result: null })
    expect(answers.get('workspace/diagnostic/refresh')).toMatchObject({ result: null })
    expect(answers.get('client/registerCapability')).toMatchObject({ result: null })
    expect(answers.get('fake/unknownRequest')?.error).toMatchObject({ code: -32601, message: 'unsupported server request: fake/unknownRequest' })

    // the connection keeps serving after all of that, on the same process
    const hover = await rig.query('hover')
    expect(hover).toEqual({ kind: 'hover', hover: null, complete: true })
    expect(rig.pids()).toHaveLength(1)
  })

  it('a null definition with registerCapability acknowledged gives empty locations (104)', async () => {
    const rig = await makeRig({ fake: { serverRequests: [{ method: 'client/registerCapability', params: { registrations: [] } }] } })
    expect(await rig.query('goToDefinition')).toEqual({ kind: 'locations', locations: [], resolvedWorkspaceUri: rig.wsUrl, complete: true })
  })
})

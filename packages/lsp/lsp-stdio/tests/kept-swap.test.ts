// [PROC] A writer's notice about a kept document marks it by the path it was opened under, without
// resolving that path (issue 27 item 2: a realpath per notice, a readlink per component); the text is
// read before the next request on that server by ctx.fs's contained read, proven by what it opens.
// These are the swaps that proof must catch: a directory on the kept path swapped for a symlink after
// the notice, leading out of the workspace (nothing of the outside file reaches the server) or to
// another file inside it (that file is the one changed). Before the cut the notice resolved the path;
// the re-read was a plain `readText` of the kept path.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, fileUrl, makeRig, makeWorkspace } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** A server answering pulled diagnostics: dsh keeps its documents open, as on TypeScript 7. */
const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

async function keptRig() {
  const rig = await makeRig({ files: { 'a.ts': 'a\n', 'sub/b.ts': 'b\n', 'other/b.ts': 'other\n' }, fake: KEEPING })
  const diagnostics = (filePath: string) => rig.provider.diagnostics({ filePath, workspaceRoot: rig.ws, languageId: 'typescript' })
  await diagnostics('sub/b.ts')
  return { rig, diagnostics }
}

/** Every didOpen/didChange/didClose text and every watched-file change the server was sent. */
function sent(rig: Awaited<ReturnType<typeof makeRig>>) {
  const messages = fakeMessages(rig.entries(), 'in')
  return {
    texts: messages.filter((message) => message.method?.startsWith('textDocument/did')).map((message) => JSON.stringify(message.params)),
    closed: fakeMessages(rig.entries(), 'in', 'textDocument/didClose').map((message) => (message.params as any).textDocument.uri),
    watched: fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').flatMap((message) => (message.params as any).changes),
  }
}

describe('a kept document marked by its name, then its directory swapped for a symlink', () => {
  it('leading out of the workspace: nothing of the file outside reaches the server; the document is closed and the server told', async () => {
    const { rig, diagnostics } = await keptRig()
    const outside = makeWorkspace({ 'b.ts': 'SECRET outside the workspace\n' })
    rig.provider.fileChanged({ path: join(rig.ws, 'sub', 'b.ts'), kind: 'changed' })
    renameSync(join(rig.ws, 'sub'), join(rig.ws, 'sub-was'))
    symlinkSync(outside, join(rig.ws, 'sub'))
    await diagnostics('a.ts')
    const { texts, closed, watched } = sent(rig)
    expect(texts.filter((text) => text.includes('SECRET'))).toEqual([])
    expect(closed).toEqual([fileUrl(join(rig.ws, 'sub', 'b.ts'))])
    expect(watched).toEqual([{ uri: fileUrl(join(rig.ws, 'sub', 'b.ts')), type: 2 }])
  })

  it('leading to another file inside: the kept document is closed, and that file is the one changed', async () => {
    const { rig, diagnostics } = await keptRig()
    rig.provider.fileChanged({ path: join(rig.ws, 'sub', 'b.ts'), kind: 'changed' })
    renameSync(join(rig.ws, 'sub'), join(rig.ws, 'sub-was'))
    symlinkSync(join(rig.ws, 'other'), join(rig.ws, 'sub'))
    await diagnostics('a.ts')
    const { closed, watched } = sent(rig)
    expect(closed).toEqual([fileUrl(join(rig.ws, 'sub', 'b.ts'))])
    expect(watched).toEqual([
      { uri: fileUrl(join(rig.ws, 'sub', 'b.ts')), type: 2 },
      { uri: fileUrl(join(rig.ws, 'other', 'b.ts')), type: 2 },
    ])
  })

  it('leading to another kept document inside: that document is brought up to date with its text', async () => {
    const { rig, diagnostics } = await keptRig()
    await diagnostics('other/b.ts')
    writeFileSync(join(rig.ws, 'other', 'b.ts'), 'other, changed\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'sub', 'b.ts'), kind: 'changed' })
    renameSync(join(rig.ws, 'sub'), join(rig.ws, 'sub-was'))
    symlinkSync(join(rig.ws, 'other'), join(rig.ws, 'sub'))
    await diagnostics('a.ts')
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => [(message.params as any).textDocument.uri, (message.params as any).contentChanges[0].text])
    expect(changes).toEqual([[fileUrl(join(rig.ws, 'other', 'b.ts')), 'other, changed\n']])
    expect(sent(rig).closed).toEqual([fileUrl(join(rig.ws, 'sub', 'b.ts'))])
  })

  it('a kept document written in place is read and sent as before (no swap)', async () => {
    const { rig, diagnostics } = await keptRig()
    mkdirSync(join(rig.ws, 'unrelated'))
    writeFileSync(join(rig.ws, 'sub', 'b.ts'), 'b, changed\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'sub', 'b.ts'), kind: 'changed' })
    await diagnostics('a.ts')
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => [(message.params as any).textDocument.uri, (message.params as any).contentChanges[0].text])
    expect(changes).toEqual([[fileUrl(join(rig.ws, 'sub', 'b.ts')), 'b, changed\n']])
    expect(sent(rig).closed).toEqual([])
  })
})

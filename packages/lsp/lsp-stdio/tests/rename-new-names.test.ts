// The `ecmascript` new-name rule's reserved words (`class`, `delete`): refused unless the server's
// hover at the position says the symbol is a member. A hover the server fails (an error answer) is
// no answer: the rename is refused for want of it, not failed with the hover's error, which would
// blame the server for a question the caller never asked. The real servers' hovers are driven in
// tool-lsp's real/rename-names.test.ts; the fake here answers the hover as scripted.
import type { LspProviderRenameRequest } from 'dsh-lsp'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeLspConfig } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig, range, rejection } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** A fake that renames `a` (its edit names another file: the provider does not check where edits go, the tool does) and answers the hover as given. */
const renaming = (more: Record<string, unknown>) => ({
  capabilities: { renameProvider: true },
  ...more,
  results: { 'textDocument/rename': { changes: { 'file:///w/a.ts': [{ range: range(0, 13, 14), newText: 'class' }] } }, ...(more.results as object | undefined) },
})
const hover = (value: string) => ({ results: { 'textDocument/hover': { contents: { kind: 'markdown', value: `\`\`\`typescript\n${value}\n\`\`\`` } } } })

describe('a reserved word as the new name (newNames: ecmascript)', () => {
  it('is refused for a variable, kept for a property, and refused (not failed) when the hover fails', async () => {
    const ask = async (fake: Record<string, unknown>) => {
      const rig = await makeRig({ files: { 'a.ts': 'export const a = 1\n' }, fake: fake as FakeLspConfig, server: { newNames: 'ecmascript' } })
      return rig.provider.rename({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript', position: { line: 0, character: 13 }, newName: 'class' } satisfies LspProviderRenameRequest)
    }
    const variable = await rejection(ask(renaming(hover('const a: 1'))))
    expect(variable.code).toBe('LSP_RENAME_REFUSED')
    expect(variable.message).toContain('is a reserved word in TypeScript and JavaScript, which only a property, method or enum member may be named, and the symbol is not one ("const a: 1")')
    expect(await ask(renaming(hover('(property) A.a: number')))).toMatchObject({ kind: 'rename', oldName: 'a' })
    // The hover's error answer failed the rename with it (LSP_SERVER_ERROR: "hover crashed").
    const failed = await rejection(ask(renaming({ errorReply: { 'textDocument/hover': { code: -32603, message: 'hover crashed' } } })))
    expect(failed.code).toBe('LSP_RENAME_REFUSED')
    expect(failed.message).toContain('and the server did not say the symbol is one')
  })
})

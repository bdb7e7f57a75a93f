import { Context } from 'cordis'
import FileSystem from 'dsh-core/fs'
import ToolRuntime from 'dsh-core/tools'
import LspService from 'dsh-lsp'
import { describe, expect, it } from 'vitest'
import * as toolLsp from '../src/index.ts'
import { loadToolLsp } from './harness.ts'

// Reference checklist (reference/lsp.md §6.8) items 194, 196, 197 and 209: module shape and config.

// cordis ScopeStatus.FAILED (a const enum in its typings).
const FAILED = 3

describe('the plugin module', () => {
  it('209: a namespace plugin with no default export', () => {
    expect('default' in toolLsp).toBe(false)
    expect(toolLsp.name).toBe('tool-lsp')
    expect(toolLsp.inject).toEqual({ tools: { required: true }, lsp: { required: true }, fs: { required: true }, sessions: { required: false } })
    expect(typeof toolLsp.apply).toBe('function')
    expect(typeof toolLsp.Config).toBe('function')
  })
})

describe('config', () => {
  it('194: defaults', () => {
    expect(toolLsp.Config(undefined)).toEqual({
      maxLocations: 100,
      maxResultChars: 16_000,
      timeoutMs: 60_000,
      lineTextChars: 200,
      maxLineFileBytes: 2_000_000,
      lineTextBudgetBytes: 8_000_000,
      symbolSearchLines: 3,
      maxDiagnostics: 50,
      maxSymbols: 200,
      maxSymbolDepth: 3,
      maxNameChars: 200,
      rename: { maxFiles: 200, maxFileBytes: 4_000_000, maxPreviewLines: 200, diagnosticsFiles: 10, allowFileOperations: false, rememberedPreviews: 32 },
      calls: { defaultDepth: 1, maxDepth: 4, maxCalls: 100 },
      autoDiagnostics: { enabled: false, severity: 'error', maxFiles: 10, maxItems: 20, timeoutMs: 15_000 },
    })
    expect(toolLsp.Config({ timeoutMs: 5000 }).timeoutMs).toBe(5000)
  })

  it('196, 197: bad values fail naming the field', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ maxLocations: 0 }, 'maxLocations'],
      [{ maxLocations: 1.5 }, 'maxLocations'],
      [{ maxResultChars: -1 }, 'maxResultChars'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ timeoutMs: 2_147_483_648 }, 'timeoutMs'],
      [{ lineTextChars: -1 }, 'lineTextChars'],
      [{ maxLineFileBytes: 0 }, 'maxLineFileBytes'],
      [{ symbolSearchLines: -1 }, 'symbolSearchLines'],
      [{ symbolSearchLines: 1001 }, 'symbolSearchLines'],
      [{ maxLocation: 5 }, 'maxLocation'],
      [{ maxDiagnostics: 0 }, 'maxDiagnostics'],
      [{ maxSymbolDepth: 65 }, 'maxSymbolDepth'],
      [{ autoDiagnostics: { enabled: 'yes' } }, 'enabled'],
      [{ autoDiagnostics: { severity: 'fatal' } }, 'severity'],
    ]
    for (const [config, field] of bad) expect(() => toolLsp.Config(config), field).toThrow(field)
  })

  it('197: a direct apply() validates too', async () => {
    const app = new Context()
    app.plugin(ToolRuntime)
    app.plugin(FileSystem)
    app.plugin(LspService)
    await app.start()
    expect(() => toolLsp.apply(app, { timeoutMs: 2_147_483_648 } as toolLsp.ToolLspConfig)).toThrow('timeoutMs')
    expect(app.tools.get('lsp')).toBeUndefined()
    await app.stop()
  })

  it('196: through cordis, a bad config fails the fork and registers nothing', async () => {
    const app = new Context()
    app.plugin(ToolRuntime)
    app.plugin(FileSystem)
    app.plugin(LspService)
    const fork = loadToolLsp(app, { maxLocations: 0 })
    await app.start()
    await app.events.flush()
    expect(fork.status).toBe(FAILED)
    expect(String(fork.error)).toContain('maxLocations')
    expect(app.tools.get('lsp')).toBeUndefined()
    expect(app.tools.sections()).toEqual([])
    await app.stop()
  })
})

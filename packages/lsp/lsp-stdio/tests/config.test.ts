// [PURE] Configuration validation (reference lsp.md §3.1, checklist 157–163 adapted to our zod schema),
// and the same failures through bootPreset (PRESET_CONFIG_INVALID naming the row and the field).
import { bootPreset, PresetError } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { LspStdioConfig, ServerConfig } from '../src/config.ts'
import { Config } from '../src/index.ts'
import { cleanupRigs, rejection, writePreset } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const base = { command: 'fake-lsp', extensionToLanguage: { '.ts': 'typescript' } }

function zodIssues(fn: () => unknown): z.core.$ZodIssue[] {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(z.ZodError)
    return (error as z.ZodError).issues
  }
  throw new Error('expected a ZodError')
}

function issuePaths(config: unknown): string[] {
  return zodIssues(() => LspStdioConfig.parse(config)).map((issue) => issue.path.join('.'))
}

describe('ServerConfig defaults', () => {
  it('fills every optional field with its documented default', () => {
    expect(ServerConfig.parse(base)).toEqual({
      command: 'fake-lsp',
      args: [],
      env: {},
      untrustedEnv: {},
      untrustedInitializationOptions: {},
      readsAbove: [],
      extensionToLanguage: { '.ts': 'typescript' },
      filenameToLanguage: {},
      rootMarkers: [],
      fatalLogPatterns: [],
      initializationOptions: null,
      configuration: null,
      initializedNotifications: [],
      processId: 'host',
      maxDocumentBytes: 4_000_000,
      maxMessageBytes: 16_000_000,
      maxStderrBytes: 2_000,
      initializeTimeoutMs: 30_000,
      handshakeSettleMs: 2_000,
      requestTimeoutMs: 60_000,
      indexingTimeoutMs: 20_000,
      diagnosticsWaitMs: 10_000,
      diagnosticsSettleMs: 200,
      maxOpenDocuments: 50,
      probeSettleMs: 10_000,
      progressTimeoutMs: 600_000,
      shutdownTimeoutMs: 5_000,
      killGraceMs: 2_000,
      idleTimeoutMs: 600_000,
      maxServers: 4,
      crashes: { maxCrashes: 3, windowMs: 60_000, backoffMs: 5_000, maxBackoffMs: 120_000 },
    })
  })

  it('keeps JSON initializationOptions / configuration verbatim and accepts a null env entry (removal)', () => {
    const parsed = ServerConfig.parse({ ...base, initializationOptions: { a: [1, 'x', null] }, configuration: { python: { analysis: { x: 1 } } }, env: { A: 'b', DROP_ME: null } })
    expect(parsed.initializationOptions).toEqual({ a: [1, 'x', null] })
    expect(parsed.configuration).toEqual({ python: { analysis: { x: 1 } } })
    expect(parsed.env).toEqual({ A: 'b', DROP_ME: null })
  })

  it('logProgress and fatalLogPatterns take only regular expressions that compile', () => {
    expect(() => ServerConfig.parse({ ...base, logProgress: { title: 'analysis', begin: 'start', end: '(' } })).toThrow(/logProgress/)
    expect(ServerConfig.parse({ ...base, logProgress: { title: 'analysis', begin: 'start', end: 'done' } }).logProgress).toEqual({ title: 'analysis', begin: 'start', end: 'done', fromInitialized: false })
  })

  it('workspaceIndex takes paths below the root only', () => {
    for (const file of ['../compile_commands.json', '/compile_commands.json', 'build/../x', './x', 'a//b', '']) {
      expect(() => ServerConfig.parse({ ...base, workspaceIndex: { files: [file], note: 'why' } }), file).toThrow(/workspaceIndex/)
    }
    expect(ServerConfig.parse({ ...base, workspaceIndex: { files: ['compile_commands.json', 'build/compile_commands.json'], note: 'why' } }).workspaceIndex?.files).toHaveLength(2)
  })

  it('merges a partial crashes object over its defaults', () => {
    expect(ServerConfig.parse({ ...base, crashes: { maxCrashes: 1 } }).crashes).toEqual({ maxCrashes: 1, windowMs: 60_000, backoffMs: 5_000, maxBackoffMs: 120_000 })
  })
})

describe('LspStdioConfig validation', () => {
  const numeric = [
    'maxDocumentBytes',
    'maxMessageBytes',
    'maxStderrBytes',
    'initializeTimeoutMs',
    'requestTimeoutMs',
    'indexingTimeoutMs',
    'progressTimeoutMs',
    'shutdownTimeoutMs',
    'killGraceMs',
    'idleTimeoutMs',
    'maxServers',
  ] as const

  it.each(numeric)('%s: zero, negative and fractional values are refused naming servers.<id>.<field>', (field) => {
    for (const value of [0, -1, 1.5]) {
      expect(issuePaths({ servers: { 'bad-budget': { ...base, [field]: value } } })).toEqual([`servers.bad-budget.${field}`])
    }
    expect(issuePaths({ servers: { 'bad-budget': { ...base, [field]: '10' } } })).toEqual([`servers.bad-budget.${field}`])
  })

  it.each(['initializeTimeoutMs', 'requestTimeoutMs', 'indexingTimeoutMs', 'progressTimeoutMs', 'shutdownTimeoutMs', 'killGraceMs', 'idleTimeoutMs'] as const)(
    '%s: a timer over 2147483647 ms is refused, the maximum itself is accepted',
    (field) => {
      expect(issuePaths({ servers: { 'bad-timer': { ...base, [field]: 2_147_483_648 } } })).toEqual([`servers.bad-timer.${field}`])
      expect(LspStdioConfig.parse({ servers: { ok: { ...base, [field]: 2_147_483_647 } } }).servers.ok?.[field]).toBe(2_147_483_647)
    },
  )

  it('validates the crash budget fields', () => {
    expect(issuePaths({ servers: { s: { ...base, crashes: { maxCrashes: 0 } } } })).toEqual(['servers.s.crashes.maxCrashes'])
    expect(issuePaths({ servers: { s: { ...base, crashes: { backoffMs: 2_147_483_648 } } } })).toEqual(['servers.s.crashes.backoffMs'])
    expect(issuePaths({ servers: { s: { ...base, crashes: { windowMs: -5 } } } })).toEqual(['servers.s.crashes.windowMs'])
    expect(issuePaths({ servers: { s: { ...base, crashes: { surprise: 1 } } } })).toEqual(['servers.s.crashes'])
  })

  it('refuses an empty servers map', () => {
    const issues = zodIssues(() => LspStdioConfig.parse({ servers: {} }))
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['servers', 'servers must contain at least one server (or name some in catalog)']])
  })

  it('refuses a missing config, a missing servers key and unknown top-level keys', () => {
    expect(issuePaths(undefined)).toEqual([''])
    expect(issuePaths({})).toEqual(['servers'])
    expect(issuePaths({ servers: { s: base }, extra: true })).toEqual([''])
  })

  it('refuses empty and malformed server ids, naming the id and saying why', () => {
    for (const id of ['', ' ', 'a b', 'a/b']) {
      const issues = zodIssues(() => LspStdioConfig.parse({ servers: { [id]: base } }))
      expect(issues.map((issue) => issue.path)).toEqual([['servers', id]])
      expect(issues[0]?.message).toMatch(/server ids must be non-empty/)
    }
    expect(Object.keys(LspStdioConfig.parse({ servers: { 'type_script.v-2': base } }).servers)).toEqual(['type_script.v-2'])
  })

  it('refuses an empty or missing command, a missing extension map, bad args/env and unknown fields', () => {
    expect(issuePaths({ servers: { s: { ...base, command: '' } } })).toEqual(['servers.s.command'])
    expect(issuePaths({ servers: { s: { extensionToLanguage: base.extensionToLanguage } } })).toEqual(['servers.s.command'])
    expect(issuePaths({ servers: { s: { command: 'x' } } })).toEqual(['servers.s.extensionToLanguage'])
    expect(issuePaths({ servers: { s: { ...base, args: '--stdio' } } })).toEqual(['servers.s.args'])
    expect(issuePaths({ servers: { s: { ...base, env: { A: 1 } } } })).toEqual(['servers.s.env.A'])
    expect(issuePaths({ servers: { s: { ...base, processId: 'parent' } } })).toEqual(['servers.s.processId'])
    expect(issuePaths({ servers: { s: { ...base, killGrace: 10 } } })).toEqual(['servers.s'])
  })

  it('reports every bad entry, not just the first', () => {
    expect(issuePaths({ servers: { a: { ...base, killGraceMs: 0 }, b: { ...base, maxDocumentBytes: -1 } } }).sort()).toEqual(['servers.a.killGraceMs', 'servers.b.maxDocumentBytes'])
  })

  it('the plugin Config function is the schema parse (throws ZodError, returns defaults)', () => {
    expect(() => Config({ servers: {} })).toThrow(z.ZodError)
    expect(Config({ servers: { s: base } }).servers.s?.killGraceMs).toBe(2_000)
  })
})

describe('config errors through bootPreset', () => {
  it.each([
    ['killGraceMs', 0, 'config.servers.bad-budget.killGraceMs'],
    ['maxDocumentBytes', 0, 'config.servers.bad-budget.maxDocumentBytes'],
    ['shutdownTimeoutMs', 2_147_483_648, 'config.servers.bad-budget.shutdownTimeoutMs'],
    ['maxServers', -1, 'config.servers.bad-budget.maxServers'],
  ] as const)('%s = %s → PRESET_CONFIG_INVALID naming the row and %s', async (field, value, path) => {
    const preset = writePreset({ servers: { 'bad-budget': { command: process.execPath, extensionToLanguage: { '.ts': 'typescript' }, [field]: value } } })
    const error = await rejection(bootPreset({ preset }))
    expect(error).toBeInstanceOf(PresetError)
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "lsp-stdio" (dsh-lsp-stdio)')
    expect(error.message).toContain(`${path}:`)
    expect(error.cause).toBeInstanceOf(z.ZodError)
  })

  it('an empty servers map and a bad id are PRESET_CONFIG_INVALID with the reason', async () => {
    const empty = await rejection(bootPreset({ preset: writePreset({ servers: {} }) }))
    expect(empty.code).toBe('PRESET_CONFIG_INVALID')
    expect(empty.message).toContain('config.servers: servers must contain at least one server')

    const badId = await rejection(bootPreset({ preset: writePreset({ servers: { 'two words': { command: process.execPath, extensionToLanguage: { '.ts': 'typescript' } } } }) }))
    expect(badId.code).toBe('PRESET_CONFIG_INVALID')
    expect(badId.message).toContain('config.servers.two words: server ids must be non-empty')
  })

  it('a missing config is PRESET_CONFIG_INVALID too', async () => {
    const error = await rejection(bootPreset({ preset: writePreset(undefined) }))
    expect(error.code).toBe('PRESET_CONFIG_INVALID')
    expect(error.message).toContain('row "lsp-stdio"')
  })
})

import { Context } from 'cordis'
import { HarnessError, Lifetime } from 'dsh-core'
import LspService, { CallProofs, finalExtension, LspError, type LspBound, type LspProvider, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

// Reference checklist (reference/lsp.md §6.1), items 1–24, against a real cordis Context.

const NO_HOVER: LspQueryResult = { kind: 'hover', hover: null, complete: true }

interface RecordingProvider extends LspProvider {
  readonly calls: { request: LspProviderQuery; signal: LspBound | undefined }[]
}

function provider(id: string, extensionToLanguage: Record<string, string>, result: LspQueryResult = NO_HOVER): RecordingProvider {
  const calls: RecordingProvider['calls'] = []
  return {
    id,
    extensionToLanguage,
    calls,
    async query(request, signal) {
      calls.push({ request, signal })
      return result
    },
  }
}

function request(filePath: string) {
  return { operation: 'hover' as const, filePath, position: { line: 0, character: 0 }, workspaceRoot: '/w' }
}

/** Runs `fn` and returns the LspError code it threw synchronously. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LspError)
    return (error as LspError).code
  }
  throw new Error('expected a synchronous throw')
}

async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(LspError)
  return (error as LspError).code
}

let app: Context

beforeEach(async () => {
  app = new Context()
  app.plugin(LspService)
  await app.start()
})

afterEach(async () => {
  await app.stop()
})

describe('finalExtension', () => {
  it('1: lowercases the final suffix', () => {
    expect(finalExtension('src/Foo.TS')).toBe('.ts')
  })

  it('2: only the last suffix selects', () => {
    expect(finalExtension('a/b/foo.d.ts')).toBe('.ts')
  })

  it('3: honours backslash separators', () => {
    expect(finalExtension('C:\\proj\\Main.CS')).toBe('.cs')
  })

  it('4: no extension for names without a dot, dotfiles, or a dot only in a directory', () => {
    expect(finalExtension('Makefile')).toBe('')
    expect(finalExtension('.bashrc')).toBe('')
    expect(finalExtension('dir.d/file')).toBe('')
  })
})

describe('routing', () => {
  it('5: routes to the provider with the file path and the language id', async () => {
    const ts = provider('ts', { '.ts': 'typescript' }, { kind: 'locations', locations: [], resolvedWorkspaceUri: 'file:///w', complete: true })
    app.lsp.registerProvider(ts)
    await expect(app.lsp.query(request('a.ts'))).resolves.toEqual({ kind: 'locations', locations: [], resolvedWorkspaceUri: 'file:///w', complete: true })
    expect(ts.calls).toHaveLength(1)
    expect(ts.calls[0]?.request).toMatchObject({ filePath: 'a.ts', languageId: 'typescript', workspaceRoot: '/w' })
  })

  it('6: the disposer unroutes the provider', async () => {
    const dispose = app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    dispose()
    expect(await rejectionCode(app.lsp.query(request('a.ts')))).toBe('LSP_UNAVAILABLE')
  })

  it('7: a key without a dot, in any case, is normalised', async () => {
    const ts = provider('ts', { TS: 'typescript' })
    app.lsp.registerProvider(ts)
    await app.lsp.query(request('a.ts'))
    expect(ts.calls[0]?.request.languageId).toBe('typescript')
    expect(app.lsp.routing()).toEqual([{ extension: '.ts', providerId: 'ts', languageId: 'typescript' }])
  })

  it('17: each file goes to its own provider, whatever the registration order', async () => {
    const locations: LspQueryResult = { kind: 'locations', locations: [], resolvedWorkspaceUri: 'file:///w', complete: true }
    for (const order of [0, 1]) {
      const scope = new Context()
      scope.plugin(LspService)
      await scope.start()
      const ts = provider('ts', { '.ts': 'typescript' }, NO_HOVER)
      const py = provider('py', { '.py': 'python' }, locations)
      for (const p of order ? [py, ts] : [ts, py]) scope.lsp.registerProvider(p)
      await expect(scope.lsp.query(request('x/a.ts'))).resolves.toEqual(NO_HOVER)
      await expect(scope.lsp.query(request('x/b.py'))).resolves.toEqual(locations)
      expect(ts.calls.map((c) => c.request.filePath)).toEqual(['x/a.ts'])
      expect(py.calls.map((c) => c.request.filePath)).toEqual(['x/b.py'])
      await scope.stop()
    }
  })

  it('18: the caller’s signal reaches the provider as the same object', async () => {
    const ts = provider('ts', { '.ts': 'typescript' })
    app.lsp.registerProvider(ts)
    const signal = new AbortController().signal
    await app.lsp.query(request('a.ts'), signal)
    expect(ts.calls[0]?.signal).toBe(signal)
  })

  it('the provider is asked the contract’s fields and the route’s language id, read one by one: the caller’s object is not enumerated', async () => {
    const ts = provider('ts', { '.ts': 'typescript' })
    app.lsp.registerProvider(ts)
    const enumerated: string[] = []
    const fields = { ...request('a.ts'), extra: 'not part of the contract' }
    // A spread (`{ ...request, languageId }`, on V8's slow path for a spread followed by a property) enumerates its keys.
    const asked = new Proxy(fields, { ownKeys: (target) => (enumerated.push('ownKeys'), Reflect.ownKeys(target)) })
    await app.lsp.query(asked, new AbortController().signal)
    expect(enumerated).toEqual([])
    expect(ts.calls[0]?.request).toStrictEqual({ operation: 'hover', filePath: 'a.ts', position: { line: 0, character: 0 }, workspaceRoot: '/w', languageId: 'typescript' })
  })

  it('a caller’s Lifetime reaches query, diagnostics, documentSymbols, rename and callHierarchy as the same object, and no signal is made for it', async () => {
    const bounds: [string, LspBound | undefined][] = []
    const diagnosed = { kind: 'diagnostics' as const, uri: 'file:///w/a.ts', resolvedWorkspaceUri: 'file:///w', items: [], complete: true }
    const outline = { kind: 'documentSymbols' as const, uri: 'file:///w/a.ts', resolvedWorkspaceUri: 'file:///w', symbols: [], complete: true }
    const renamed = { kind: 'rename' as const, resolvedWorkspaceUri: 'file:///w', oldName: 'a', files: [], fileOperations: [], complete: true }
    const hierarchy = { kind: 'callHierarchy' as const, direction: 'incoming' as const, resolvedWorkspaceUri: 'file:///w', roots: [], truncated: false, complete: true }
    app.lsp.registerProvider({
      id: 'ts',
      extensionToLanguage: { '.ts': 'typescript' },
      query: async (_request, bound) => (bounds.push(['query', bound]), NO_HOVER),
      diagnostics: async (_request, bound) => (bounds.push(['diagnostics', bound]), diagnosed),
      documentSymbols: async (_request, bound) => (bounds.push(['documentSymbols', bound]), outline),
      rename: async (_request, bound) => (bounds.push(['rename', bound]), renamed),
      callHierarchy: async (_request, bound) => (bounds.push(['callHierarchy', bound]), hierarchy),
    })
    const position = { line: 0, character: 0 }
    const ask = (filePath: string, bound: LspBound) =>
      Promise.all([
        app.lsp.query(request(filePath), bound),
        app.lsp.diagnostics({ filePath, workspaceRoot: '/w' }, bound),
        app.lsp.documentSymbols({ filePath, workspaceRoot: '/w' }, bound),
        app.lsp.rename({ filePath, workspaceRoot: '/w', position, newName: 'b' }, bound),
        app.lsp.callHierarchy({ filePath, workspaceRoot: '/w', position, direction: 'incoming', depth: 1, maxCalls: 10 }, bound),
      ])
    const names = ['query', 'diagnostics', 'documentSymbols', 'rename', 'callHierarchy']
    const made = countAbortControllers()
    const lifetime = new Lifetime()
    try {
      expect(await ask('a.ts', lifetime)).toEqual([NO_HOVER, diagnosed, outline, renamed, hierarchy])
      expect(bounds).toEqual(names.map((name) => [name, lifetime]))
      for (const [, bound] of bounds) expect(bound).toBe(lifetime)
      expect(made.count).toBe(0)
    } finally {
      made.restore()
    }
    // A signal goes as the same object too.
    bounds.length = 0
    const signal = new AbortController().signal
    await ask('a.ts', signal)
    for (const [, bound] of bounds) expect(bound).toBe(signal)
    // Refusals stay rejections, with their codes: no route, no capability, foreign proofs.
    await expect(app.lsp.diagnostics({ filePath: 'a.rs', workspaceRoot: '/w' }, lifetime)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE' })
    await expect(app.lsp.documentSymbols({ filePath: 'a.rs', workspaceRoot: '/w' }, lifetime)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE' })
    await expect(app.lsp.diagnostics({ filePath: 'a.ts', workspaceRoot: '/w', proofs: {} as CallProofs }, lifetime)).rejects.toMatchObject({ code: 'LSP_INVALID_REQUEST' })
    app.lsp.registerProvider(provider('go', { '.go': 'go' }))
    await expect(app.lsp.diagnostics({ filePath: 'a.go', workspaceRoot: '/w' }, new Lifetime())).rejects.toMatchObject({ code: 'LSP_UNSUPPORTED_OPERATION' })
  })

  it('19: an unmapped extension is an asynchronous rejection, with the path in the message', async () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    let pending: Promise<unknown> | undefined
    expect(() => {
      pending = app.lsp.query(request('main.rs'))
    }).not.toThrow()
    expect(await rejectionCode(pending!)).toBe('LSP_UNAVAILABLE')
    await expect(app.lsp.query(request('main.rs'))).rejects.toThrow('"main.rs"')
  })

  it('an unrouted file is told what is served, and a directory-like path that it takes a file', async () => {
    // Found driving `dsh call lsp` with `src` and `src/main.ts/`: the message was `no language server handles "src"` alone.
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript', '.tsx': 'typescriptreact' }))
    app.lsp.registerProvider({ ...provider('docker', {}), filenameToLanguage: { Dockerfile: 'dockerfile' } })
    await expect(app.lsp.query(request('README.md'))).rejects.toThrow('no language server handles "README.md"; served: .ts .tsx, and files named dockerfile')
    await expect(app.lsp.query(request('src'))).rejects.toThrow('"src" (no extension: a directory? the lsp tools take one file); served:')
    await expect(app.lsp.query(request('src/main.ts/'))).rejects.toThrow('"src/main.ts/" (a path ending in a separator: the lsp tools take one file)')
    expect(await rejectionCode(app.lsp.query(request('src')))).toBe('LSP_UNAVAILABLE')
  })

  it('24: a trailing dot routes nowhere', async () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    expect(await rejectionCode(app.lsp.query(request('foo.')))).toBe('LSP_UNAVAILABLE')
  })

  it('provider failures propagate unchanged', async () => {
    const failure = new LspError('server gone', 'LSP_SERVER_EXITED')
    app.lsp.registerProvider({ id: 'ts', extensionToLanguage: { '.ts': 'typescript' }, query: () => Promise.reject(failure) })
    await expect(app.lsp.query(request('a.ts'))).rejects.toBe(failure)
  })
})

describe('registerProvider validation', () => {
  it('8: a blank id is invalid', () => {
    expect(codeOf(() => app.lsp.registerProvider(provider('  ', { '.ts': 'typescript' })))).toBe('LSP_INVALID_PROVIDER')
  })

  it('9: an empty extension map is invalid', () => {
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', {})))).toBe('LSP_INVALID_PROVIDER')
  })

  it('10: a multi-part or empty key is invalid', () => {
    for (const key of ['.tar.gz', '.', '', '..ts', 'a/b', '.a\\b']) {
      expect(codeOf(() => app.lsp.registerProvider(provider('ts', { [key]: 'x' }))), key).toBe('LSP_INVALID_PROVIDER')
    }
  })

  it('11: a blank language id is invalid', () => {
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', { '.ts': '  ' })))).toBe('LSP_INVALID_PROVIDER')
  })

  it('12: two keys that normalise alike are invalid, and nothing is registered', async () => {
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', { '.ts': 'typescript', TS: 'ts2' })))).toBe('LSP_INVALID_PROVIDER')
    expect(app.lsp.routing()).toEqual([])
    // The id was not reserved either.
    expect(() => app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))).not.toThrow()
  })

  it('13: the same id twice conflicts, even with disjoint extensions', () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', { '.py': 'python' })))).toBe('LSP_CONFLICT')
  })

  it('14: a second provider claiming a routed extension conflicts', () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    expect(codeOf(() => app.lsp.registerProvider(provider('other', { '.TS': 'typescript' })))).toBe('LSP_CONFLICT')
  })

  it('15: a conflicting registration publishes none of its extensions', async () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    expect(codeOf(() => app.lsp.registerProvider(provider('mixed', { '.py': 'python', '.ts': 'typescript' })))).toBe('LSP_CONFLICT')
    expect(await rejectionCode(app.lsp.query(request('a.py')))).toBe('LSP_UNAVAILABLE')
    // Nor its id.
    expect(() => app.lsp.registerProvider(provider('mixed', { '.py': 'python' }))).not.toThrow()
  })

  it('23: the id check comes before the map checks', () => {
    app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', {})))).toBe('LSP_CONFLICT')
  })

  it('refuses a provider that is not an object, has no query function, or whose map is not a plain object', () => {
    const query = async () => NO_HOVER
    const bad: unknown[] = [
      null,
      'ts',
      { id: 'ts', extensionToLanguage: { '.ts': 'typescript' } },
      { id: 'ts', extensionToLanguage: 'ts', query },
      { id: 'ts', extensionToLanguage: ['typescript'], query },
      { id: 'ts', extensionToLanguage: null, query },
      { id: 42, extensionToLanguage: { '.ts': 'typescript' }, query },
    ]
    for (const candidate of bad) {
      expect(codeOf(() => app.lsp.registerProvider(candidate as LspProvider)), JSON.stringify(candidate)).toBe('LSP_INVALID_PROVIDER')
    }
    expect(app.lsp.routing()).toEqual([])
  })

  it('routing reports the id as it was reserved, even if the provider object changes it later', () => {
    const mutable = { ...provider('ts', { '.ts': 'typescript' }) }
    app.lsp.registerProvider(mutable)
    ;(mutable as { id: string }).id = 'renamed'
    expect(app.lsp.routing()).toEqual([{ extension: '.ts', providerId: 'ts', languageId: 'typescript' }])
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', { '.py': 'python' })))).toBe('LSP_CONFLICT')
  })

  it('reads the extension map once: later changes have no effect', async () => {
    const map: Record<string, string> = { '.ts': 'typescript' }
    app.lsp.registerProvider(provider('ts', map))
    map['.py'] = 'python'
    expect(await rejectionCode(app.lsp.query(request('a.py')))).toBe('LSP_UNAVAILABLE')
  })
})

describe('lifetime', () => {
  it('16: the disposer releases every extension and the id together', async () => {
    const dispose = app.lsp.registerProvider(provider('ts', { '.ts': 'typescript', '.tsx': 'typescriptreact' }))
    dispose()
    expect(await rejectionCode(app.lsp.query(request('a.ts')))).toBe('LSP_UNAVAILABLE')
    expect(await rejectionCode(app.lsp.query(request('a.tsx')))).toBe('LSP_UNAVAILABLE')
    expect(() => app.lsp.registerProvider(provider('ts', { '.ts': 'typescript', '.tsx': 'typescriptreact' }))).not.toThrow()
  })

  it('the disposer is idempotent: a stale disposer does not remove a newer registration', async () => {
    const stale = app.lsp.registerProvider(provider('ts', { '.ts': 'typescript' }))
    stale()
    const fresh = provider('ts', { '.ts': 'typescript' })
    app.lsp.registerProvider(fresh)
    stale()
    await app.lsp.query(request('a.ts'))
    expect(fresh.calls).toHaveLength(1)
    expect(codeOf(() => app.lsp.registerProvider(provider('ts', { '.py': 'python' })))).toBe('LSP_CONFLICT')
  })

  it('20: a provider registered by a child plugin goes away when that plugin’s fork is disposed', async () => {
    const child = provider('child', { '.rs': 'rust' })
    const fork = app.plugin({
      name: 'child-provider',
      inject: ['lsp'],
      apply(ctx: Context) {
        ctx.lsp.registerProvider(child)
      },
    })
    await app.events.flush()
    await app.lsp.query(request('main.rs'))
    expect(child.calls).toHaveLength(1)
    fork.dispose()
    expect(await rejectionCode(app.lsp.query(request('main.rs')))).toBe('LSP_UNAVAILABLE')
    expect(app.lsp.routing()).toEqual([])
  })

  it('a sibling plugin’s registration survives another plugin’s disposal', async () => {
    const plugin = (id: string, extension: string) => ({
      name: `provider-${id}`,
      inject: ['lsp'],
      apply(ctx: Context) {
        ctx.lsp.registerProvider(provider(id, { [extension]: id }))
      },
    })
    const first = app.plugin(plugin('a', '.a'))
    app.plugin(plugin('b', '.b'))
    await app.events.flush()
    first.dispose()
    expect(app.lsp.routing()).toEqual([{ extension: '.b', providerId: 'b', languageId: 'b' }])
  })
})

describe('vocabulary', () => {
  it('21: LspError carries its code, is a HarnessError and is named LspError', () => {
    const error = new LspError('m', 'LSP_UNAVAILABLE')
    expect(error.code).toBe('LSP_UNAVAILABLE')
    expect(error).toBeInstanceOf(HarnessError)
    expect(error.name).toBe('LspError')
    expect(error.rpcCode).toBeUndefined()
    expect(new LspError('m', 'LSP_SERVER_ERROR', { rpcCode: -32801 }).rpcCode).toBe(-32801)
  })

  it('22: provider ids are plain strings, kept verbatim (untrimmed)', () => {
    // Our seam has no branded-id factory; the reference's `LspProviderId('ts') === 'ts'` becomes this.
    app.lsp.registerProvider(provider(' ts ', { '.ts': 'typescript' }))
    expect(app.lsp.routing()[0]?.providerId).toBe(' ts ')
  })
})

describe('call proofs (issue 27 item 2)', () => {
  it('passes a request’s CallProofs to the provider, and refuses proofs made for another workspace or of another kind', async () => {
    const ts = provider('ts', { '.ts': 'typescript' })
    app.lsp.registerProvider(ts)
    const fs = {} as never
    const proofs = new CallProofs(fs, '/w')
    await app.lsp.query({ ...request('a.ts'), proofs })
    expect(ts.calls[0]?.request.proofs).toBe(proofs)
    expect(await rejectionCode(app.lsp.query({ ...request('a.ts'), proofs: new CallProofs(fs, '/elsewhere') }))).toBe('LSP_INVALID_REQUEST')
    expect(await rejectionCode(app.lsp.query({ ...request('a.ts'), proofs: { workspaceRoot: '/w' } as never }))).toBe('LSP_INVALID_REQUEST')
    expect(await rejectionCode(app.lsp.diagnostics({ filePath: 'a.ts', workspaceRoot: '/w', proofs: new CallProofs(fs, '/elsewhere') }))).toBe('LSP_INVALID_REQUEST')
    expect(ts.calls).toHaveLength(1)
  })
})

/** Counts the AbortControllers made until `restore` (each one is an EventTarget and its signal). */
function countAbortControllers(): { readonly count: number; restore(): void } {
  const original = globalThis.AbortController
  const made = { count: 0 }
  globalThis.AbortController = class extends original {
    constructor() {
      super()
      made.count++
    }
  }
  return {
    get count() {
      return made.count
    },
    restore: () => {
      globalThis.AbortController = original
    },
  }
}

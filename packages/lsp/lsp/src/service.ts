import { Context, Service } from 'cordis'
import { LspError } from './errors.ts'
import { finalExtension, normalizeExtensionKey } from './extensions.ts'
import type { LspProvider, LspQueryRequest, LspQueryResult } from './types.ts'

declare module 'cordis' {
  interface Context {
    lsp: LspService
  }
}

interface Route {
  readonly provider: LspProvider
  /** The id as it was reserved: a provider object that later changes its `id` cannot desynchronise the table. */
  readonly providerId: string
  readonly languageId: string
}

/**
 * `ctx.lsp`: routes each query by the file's final extension to the one provider that claimed it.
 * Providers register capabilities, never tools; there is no generic JSON-RPC escape hatch.
 */
export class LspService extends Service {
  private readonly ids = new Set<string>()
  private readonly routes = new Map<string, Route>()

  constructor(ctx: Context) {
    super(ctx, 'lsp', true)
  }

  /**
   * Reserves the provider's id and extensions atomically: every check runs before anything is
   * published. The disposer (also run when the caller's scope is disposed) releases all of it.
   */
  registerProvider(provider: LspProvider): () => void {
    const id: unknown = provider?.id
    if (typeof id !== 'string' || !id.trim()) throw new LspError('provider id must be a non-empty string', 'LSP_INVALID_PROVIDER')
    if (this.ids.has(id)) throw new LspError(`an LSP provider with id "${id}" is already registered`, 'LSP_CONFLICT')
    if (typeof provider.query !== 'function') throw new LspError(`provider "${id}" has no query function`, 'LSP_INVALID_PROVIDER')
    const map: unknown = provider.extensionToLanguage
    // Object.entries would happily read a string or an array as a map of '.0', '.1', … routes.
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      throw new LspError(`provider "${id}": extensionToLanguage must be an object of extension → language id`, 'LSP_INVALID_PROVIDER')
    }
    const entries = Object.entries(map)
    if (!entries.length) throw new LspError(`provider "${id}" maps no extensions`, 'LSP_INVALID_PROVIDER')
    const routes = new Map<string, Route>()
    for (const [key, languageId] of entries) {
      const extension = normalizeExtensionKey(key)
      if (!extension) throw new LspError(`provider "${id}": extension ${JSON.stringify(key)} is not a single suffix like ".ts"`, 'LSP_INVALID_PROVIDER')
      if (typeof languageId !== 'string' || !languageId.trim()) {
        throw new LspError(`provider "${id}": the language id for ${extension} must be a non-empty string`, 'LSP_INVALID_PROVIDER')
      }
      if (routes.has(extension)) throw new LspError(`provider "${id}" maps ${extension} twice`, 'LSP_INVALID_PROVIDER')
      routes.set(extension, { provider, providerId: id, languageId })
    }
    for (const extension of routes.keys()) {
      const owner = this.routes.get(extension)
      if (owner) throw new LspError(`provider "${id}": ${extension} is already served by "${owner.providerId}"`, 'LSP_CONFLICT')
    }
    return this.ctx.effect(() => {
      this.ids.add(id)
      for (const [extension, route] of routes) this.routes.set(extension, route)
      return () => {
        this.ids.delete(id)
        for (const [extension, route] of routes) {
          if (this.routes.get(extension) === route) this.routes.delete(extension)
        }
      }
    })
  }

  /** The extensions currently routed, with the provider that serves each. */
  routing(): { extension: string; providerId: string; languageId: string }[] {
    return [...this.routes].map(([extension, route]) => ({ extension, providerId: route.providerId, languageId: route.languageId }))
  }

  /** Throws LSP_UNAVAILABLE, as `query` would, unless a provider serves the file's final extension. */
  assertRouted(filePath: string): void {
    this.routeFor(filePath)
  }

  /** Routes by final extension (order-independent); the same signal object reaches the provider. */
  async query(request: LspQueryRequest, signal?: AbortSignal): Promise<LspQueryResult> {
    const route = this.routeFor(request.filePath)
    return route.provider.query({ ...request, languageId: route.languageId }, signal)
  }

  private routeFor(filePath: string): Route {
    const route = this.routes.get(finalExtension(filePath))
    if (!route) throw new LspError(`no language server handles "${filePath}"`, 'LSP_UNAVAILABLE')
    return route
  }
}

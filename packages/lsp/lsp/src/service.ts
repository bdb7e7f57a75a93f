import { Context, Service } from 'cordis'
import { LspError } from './errors.ts'
import { finalExtension, normalizeExtensionKey, normalizeFilenameKey, routeByFilename } from './extensions.ts'
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
 * `ctx.lsp`: routes each query by the file's name or, failing that, its final extension to the one
 * provider that claimed it.
 * Providers register capabilities, never tools; there is no generic JSON-RPC escape hatch.
 */
export class LspService extends Service {
  private readonly ids = new Set<string>()
  private readonly routes = new Map<string, Route>()
  /** Routes by file name (`dockerfile`, `dockerfile.*`), which win over extensions. */
  private readonly names = new Map<string, Route>()

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
    const names = nameRoutes(provider, id)
    if (!entries.length && !names.size) throw new LspError(`provider "${id}" maps no extensions or file names`, 'LSP_INVALID_PROVIDER')
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
    for (const name of names.keys()) {
      const owner = this.names.get(name)
      if (owner) throw new LspError(`provider "${id}": files named ${name} are already served by "${owner.providerId}"`, 'LSP_CONFLICT')
    }
    return this.ctx.effect(() => {
      this.ids.add(id)
      for (const [extension, route] of routes) this.routes.set(extension, route)
      for (const [name, route] of names) this.names.set(name, route)
      return () => {
        this.ids.delete(id)
        for (const [extension, route] of routes) {
          if (this.routes.get(extension) === route) this.routes.delete(extension)
        }
        for (const [name, route] of names) {
          if (this.names.get(name) === route) this.names.delete(name)
        }
      }
    })
  }

  /** The extensions and file names currently routed, with the provider that serves each. */
  routing(): (({ extension: string } | { filename: string }) & { providerId: string; languageId: string })[] {
    const by = (route: Route) => ({ providerId: route.providerId, languageId: route.languageId })
    return [...[...this.routes].map(([extension, route]) => ({ extension, ...by(route) })), ...[...this.names].map(([filename, route]) => ({ filename, ...by(route) }))]
  }

  /** Throws LSP_UNAVAILABLE, as `query` would, unless a provider serves the file's name or final extension. */
  assertRouted(filePath: string): void {
    this.routeFor(filePath)
  }

  /** Routes by file name, else final extension (order-independent); the same signal object reaches the provider. */
  async query(request: LspQueryRequest, signal?: AbortSignal): Promise<LspQueryResult> {
    const route = this.routeFor(request.filePath)
    return route.provider.query({ ...request, languageId: route.languageId }, signal)
  }

  private routeFor(filePath: string): Route {
    const route = (this.names.size ? routeByFilename(this.names, filePath) : undefined) ?? this.routes.get(finalExtension(filePath))
    if (!route) throw new LspError(`no language server handles "${filePath}"`, 'LSP_UNAVAILABLE')
    return route
  }
}

/** The provider's file-name routes, checked like its extensions. */
function nameRoutes(provider: LspProvider, id: string): Map<string, Route> {
  const map: unknown = provider.filenameToLanguage
  const names = new Map<string, Route>()
  if (map === undefined) return names
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    throw new LspError(`provider "${id}": filenameToLanguage must be an object of file name → language id`, 'LSP_INVALID_PROVIDER')
  }
  for (const [key, languageId] of Object.entries(map)) {
    const name = normalizeFilenameKey(key)
    if (!name) throw new LspError(`provider "${id}": file name ${JSON.stringify(key)} is not a name like "Dockerfile" or "Dockerfile.*"`, 'LSP_INVALID_PROVIDER')
    if (typeof languageId !== 'string' || !languageId.trim()) {
      throw new LspError(`provider "${id}": the language id for files named ${key} must be a non-empty string`, 'LSP_INVALID_PROVIDER')
    }
    if (names.has(name)) throw new LspError(`provider "${id}" maps files named ${name} twice`, 'LSP_INVALID_PROVIDER')
    names.set(name, { provider, providerId: id, languageId })
  }
  return names
}

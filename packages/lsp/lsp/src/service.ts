import { isAbsolute, resolve as resolvePath } from 'node:path'
import { Context, Service } from 'cordis'
import { currentSession, errorMessage, promised, resolvedIn, untracked, type Session } from 'dsh-core'
import { CallProofs } from './call-proofs.ts'
import { askEveryProvider } from './fan-out.ts'
import { LSP_CAPABILITIES, type LspCallHierarchyRequest, type LspCallHierarchyResult, type LspCapability, type LspRenameRequest, type LspRenameResult, type LspDiagnosticsRequest, type LspDiagnosticsResult, type LspProviderDiagnosticsRequest, type LspDocumentSymbolsRequest, type LspDocumentSymbolsResult, type LspFileChange, type LspFileChangeKind, type LspWorkspaceSymbolsAnswer, type LspWorkspaceSymbolsRequest } from './capabilities.ts'
import { LspError } from './errors.ts'
import { finalExtension, normalizeExtensionKey, normalizeFilenameKey, routeByFilename } from './extensions.ts'
import type { LspBound, LspProvider, LspProviderQuery, LspQueryRequest, LspQueryResult } from './types.ts'

/** The file-routed capabilities. */
type RoutedCapability = 'diagnostics' | 'documentSymbols' | 'rename' | 'callHierarchy'

declare module 'cordis' {
  interface Context {
    lsp: LspService
  }
  interface Events {
    /** A writer told the seam a file changed; `session` is the one whose tool call or pre-step made the change. */
    'lsp/file-changed'(change: LspFileChange, session: Session | undefined): void
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
/** Extensions (and file names) listed in an LSP_UNAVAILABLE message at most. */
const MAX_LISTED = 40

export class LspService extends Service {
  /** Registered providers by id, in registration order. */
  private readonly providers = new Map<string, LspProvider>()
  private readonly routes = new Map<string, Route>()
  /** Routes by file name (`dockerfile`, `dockerfile.*`), which win over extensions. */
  private readonly names = new Map<string, Route>()
  private readonly listeners = new Set<() => void>()
  /**
   * The events service's own `emit`, taken once (see `untrackedEmit`): `fileChanged` emits on every
   * write a harness makes.
   */
  private emitter: Context['emit'] | undefined

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
    if (this.providers.has(id)) throw new LspError(`an LSP provider with id "${id}" is already registered`, 'LSP_CONFLICT')
    if (typeof provider.query !== 'function') throw new LspError(`provider "${id}" has no query function`, 'LSP_INVALID_PROVIDER')
    for (const method of [...LSP_CAPABILITIES, 'fileChanged'] as const) {
      const member: unknown = provider[method]
      if (member !== undefined && typeof member !== 'function') throw new LspError(`provider "${id}": ${method} must be a function when present`, 'LSP_INVALID_PROVIDER')
    }
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
    const service = untracked(this)
    return this.ctx.effect(() => {
      service.providers.set(id, provider)
      for (const [extension, route] of routes) service.routes.set(extension, route)
      for (const [name, route] of names) service.names.set(name, route)
      service.changed()
      return () => {
        service.providers.delete(id)
        for (const [extension, route] of routes) {
          if (service.routes.get(extension) === route) service.routes.delete(extension)
        }
        for (const [name, route] of names) {
          if (service.names.get(name) === route) service.names.delete(name)
        }
        service.changed()
      }
    })
  }

  /** True when some registered provider offers the capability. */
  offers(capability: LspCapability): boolean {
    for (const provider of untracked(this).providers.values()) if (typeof provider[capability] === 'function') return true
    return false
  }

  /** Calls `listener` after every registration and release; an effect on the caller's scope. */
  onChange(listener: () => void): () => void {
    const service = untracked(this)
    return this.ctx.effect(() => {
      const entry = () => listener()
      service.listeners.add(entry)
      return () => service.listeners.delete(entry)
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

  /**
   * Routes by file name, else final extension (order-independent). The caller's bound (its signal
   * or its `Lifetime`) reaches the provider as the same object: no `AbortSignal` is made for a
   * caller's lifetime here. Answers with the provider's own promise rather than one wrapping it (a
   * promise and a microtask turn less on every query); a refusal is a rejected promise all the same.
   */
  query(request: LspQueryRequest, bound?: LspBound): Promise<LspQueryResult> {
    return promised(() => {
      const route = this.routeFor(request.filePath)
      checkProofs(request)
      const answer = route.provider.query(providerQuery(request, route.languageId), bound)
      return answer instanceof Promise ? answer : Promise.resolve(answer)
    })
  }

  /** Routes like `query`; a provider without the capability is never asked (LSP_UNSUPPORTED_OPERATION). */
  diagnostics(request: LspDiagnosticsRequest, bound?: LspBound): Promise<LspDiagnosticsResult> {
    return this.askRouted('diagnostics', request, bound, diagnosticsQuery)
  }

  /** Routes like `diagnostics`. */
  documentSymbols(request: LspDocumentSymbolsRequest, bound?: LspBound): Promise<LspDocumentSymbolsResult> {
    return this.askRouted('documentSymbols', request, bound)
  }

  /** Routes like `diagnostics`. */
  rename(request: LspRenameRequest, bound?: LspBound): Promise<LspRenameResult> {
    return this.askRouted('rename', request, bound)
  }

  /** Routes like `diagnostics`. */
  callHierarchy(request: LspCallHierarchyRequest, bound?: LspBound): Promise<LspCallHierarchyResult> {
    return this.askRouted('callHierarchy', request, bound)
  }

  /**
   * The file-routed capability `capability` of the provider that serves `request.filePath`, with the
   * route's language id and the caller's bound as the same object; the provider's own promise is
   * the answer, a refusal a rejection all the same. `withLanguage` makes the provider's request
   * (the caller's fields and the language id); a capability asked after every edit spells its
   * fields out (see `providerQuery`).
   */
  private askRouted<C extends RoutedCapability>(
    capability: C,
    request: Omit<Parameters<NonNullable<LspProvider[C]>>[0], 'languageId'>,
    bound: LspBound | undefined,
    withLanguage: (request: Omit<Parameters<NonNullable<LspProvider[C]>>[0], 'languageId'>, languageId: string) => Parameters<NonNullable<LspProvider[C]>>[0] = withLanguageId,
  ): Promise<Awaited<ReturnType<NonNullable<LspProvider[C]>>>> {
    type Answer = Awaited<ReturnType<NonNullable<LspProvider[C]>>>
    return promised(() => {
      const route = this.routeFor(request.filePath)
      checkProofs(request)
      const { provider } = route
      const ask = provider[capability] as ((request: unknown, bound?: LspBound) => Promise<Answer>) | undefined
      if (!ask) throw unsupported(route, capability)
      return ask.call(provider, withLanguage(request, route.languageId), bound)
    })
  }

  /**
   * Asks every provider that offers workspace symbols (a query names no file to route by) and
   * merges their answers. Providers that fail are listed in `unanswered`; when none answers, the
   * first failure is thrown.
   */
  async workspaceSymbols(request: LspWorkspaceSymbolsRequest, signal?: AbortSignal): Promise<LspWorkspaceSymbolsAnswer> {
    if (typeof request.query !== 'string' || !request.query.trim()) throw new LspError('a workspace symbol query must not be blank', 'LSP_INVALID_REQUEST')
    const providers = [...untracked(this).providers.values()]
    if (!providers.length) throw new LspError('no language server is registered to search the workspace', 'LSP_UNAVAILABLE')
    const capable = providers.filter((provider) => typeof provider.workspaceSymbols === 'function')
    if (!capable.length) throw new LspError(`no language server offers workspace symbols (registered: ${providers.map((provider) => provider.id).join(', ')})`, 'LSP_UNSUPPORTED_OPERATION')
    return askEveryProvider(capable, request, signal)
  }

  /**
   * For writers: the file at `path` was just created, changed or deleted by this process. Every
   * provider that tracks files is told at once, so the servers see it before the next request,
   * and `lsp/file-changed` tells listeners (the automatic-diagnostics pre-step) which session did it.
   * A relative `path` is resolved against the session's workspace; without a session it must be absolute.
   *
   * It does not use its receiver, so a writer may take it once (`const { fileChanged } = ctx.lsp`)
   * and call it bare: each read of `ctx.lsp.fileChanged` builds cordis's shadow context and two
   * proxies (docs/architecture.md, "Helpers"), on every edit a harness makes. A notice registers
   * nothing on the caller's scope, which is all the tracking carries.
   */
  readonly fileChanged = (path: string, options: { readonly kind?: LspFileChangeKind; readonly session?: Session } = {}): void => {
    const service = untracked(this)
    const session = options.session ?? currentSession()
    if (typeof path !== 'string' || !path) throw new LspError('fileChanged needs a path', 'LSP_INVALID_REQUEST')
    if (!isAbsolute(path) && !session) throw new LspError(`fileChanged needs an absolute path outside a session (got "${path}")`, 'LSP_INVALID_REQUEST')
    const change: LspFileChange = { path: session ? resolvedIn(session.cwd, path) : resolvePath(path), kind: options.kind ?? 'changed' }
    for (const provider of [...service.providers.values()]) {
      try {
        provider.fileChanged?.(change)
      } catch (error) {
        service.ctx.logger('lsp').warn(`provider "${provider.id}" failed on a file change: ${errorMessage(error)}`)
      }
    }
    try {
      const emit = (service.emitter ??= untrackedEmit(service.ctx))
      emit('lsp/file-changed', change, session)
    } catch (error) {
      service.ctx.logger('lsp').warn(`an lsp/file-changed listener failed: ${errorMessage(error)}`)
    }
  }

  /** Listeners are other plugins' code: one that throws must not break a registration. */
  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener()
      } catch (error) {
        this.ctx.logger('lsp').warn(`an lsp onChange listener failed: ${errorMessage(error)}`)
      }
    }
  }

  private routeFor(filePath: string): Route {
    const route = (this.names.size ? routeByFilename(this.names, filePath) : undefined) ?? this.routes.get(finalExtension(filePath))
    if (!route) throw this.unrouted(filePath)
    return route
  }
  /**
   * LSP_UNAVAILABLE for a file no provider serves, saying what is served: a model that passed a
   * directory (`src`, `src/main.ts/`) or a README read only `no language server handles "src"`.
   */
  private unrouted(filePath: string): LspError {
    const directory = filePath.endsWith('/') || filePath.endsWith('\\') ? ' (a path ending in a separator: the lsp tools take one file)' : finalExtension(filePath) === '' ? ' (no extension: a directory? the lsp tools take one file)' : ''
    const extensions = [...this.routes.keys()]
    const names = [...this.names.keys()]
    const served = [extensions.length ? extensions.slice(0, MAX_LISTED).join(' ') + (extensions.length > MAX_LISTED ? ' …' : '') : '', names.length ? `files named ${names.slice(0, MAX_LISTED).join(' ')}${names.length > MAX_LISTED ? ' …' : ''}` : '']
      .filter(Boolean)
      .join(', and ')
    return new LspError(`no language server handles "${filePath}"${directory}; ${served ? `served: ${served}` : 'no language server is loaded'}`, 'LSP_UNAVAILABLE')
  }

}

/**
 * `ctx.emit` without cordis's caller tracking. Each read of `ctx.emit` builds an Error (its inject
 * check), and an emit through the tracked events service builds a shadow context for every method
 * it reads on its way (the `internal/event` emit, `dispatch`, `filterHooks`): seven per notice. An
 * event whose first argument is not an object is dispatched the same whoever emits it (cordis
 * filters listeners by that argument only), so the untracked service's `emit` is the same emit.
 */
function untrackedEmit(ctx: Context): Context['emit'] {
  // cordis 3.18 wraps the events service twice (the service is itself a traceable); once unwrapped, a second call is a no-op.
  const events = untracked(untracked(ctx.events))
  return events.emit.bind(events) as Context['emit']
}

/**
 * What the provider is asked: the request's fields and the route's language id, spelled out. Not
 * `{ ...request, languageId }`: V8 (Node 20–24) builds a spread followed by a property on a slow
 * path, microseconds on every query; and a caller's object carries no field of its own through.
 */
function providerQuery(request: LspQueryRequest, languageId: string): LspProviderQuery {
  const { operation, filePath, position, workspaceRoot, proofs } = request
  return proofs === undefined ? { operation, filePath, position, workspaceRoot, languageId } : { operation, filePath, position, workspaceRoot, proofs, languageId }
}

/**
 * What the provider is asked for `lsp_diagnostics` (after every edit a writer makes): as
 * `providerQuery`, the fields spelled out. The spread and the property took ~1.5 µs a call on
 * Node 20 against ~30 ns (bench/RESULTS.md, eighteenth session).
 */
function diagnosticsQuery(request: LspDiagnosticsRequest, languageId: string): LspProviderDiagnosticsRequest {
  const { filePath, workspaceRoot, proofs } = request
  return proofs === undefined ? { filePath, workspaceRoot, languageId } : { filePath, workspaceRoot, proofs, languageId }
}

/** The other routed capabilities' provider request: the caller's fields and the language id. */
function withLanguageId<R extends object>(request: R, languageId: string): R & { readonly languageId: string } {
  return { ...request, languageId }
}

/** A request's `proofs`, when it has them, must be the call's own, made for its workspace root. */
function checkProofs(request: { readonly workspaceRoot: string; readonly proofs?: unknown }): void {
  if (request.proofs === undefined || (request.proofs instanceof CallProofs && request.proofs.workspaceRoot === request.workspaceRoot)) return
  throw new LspError(`proofs must be a CallProofs made for the workspace root ${JSON.stringify(request.workspaceRoot)}`, 'LSP_INVALID_REQUEST')
}

function unsupported(route: Route, capability: LspCapability): LspError {
  return new LspError(`provider "${route.providerId}" does not offer ${capability}`, 'LSP_UNSUPPORTED_OPERATION')
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

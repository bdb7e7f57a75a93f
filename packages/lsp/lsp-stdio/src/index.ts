import type { Context } from 'cordis'
import { effectWithTeardown, envFromConfig, errorMessage, HarnessError, scopeLifetime, trustOf, untracked, type TrustDecider } from 'dsh-core'
import type {} from 'dsh-lsp'
import { LspStdioConfig, type ServerConfig } from './config.ts'
import { fixedLauncher, type Launcher } from './launch.ts'
import { StdioLspProvider } from './provider.ts'
import { TrustGatedLauncher } from './trust-gated.ts'
import { UntrustedEnvLauncher } from './untrusted-env.ts'
import { TypescriptLauncher } from './typescript.ts'
import { UnavailableLspProvider } from './unavailable.ts'
import { launcherRunsWorkspaceCode } from './workspace-launchers.ts'

export { SERVER_CATALOG, type CatalogEntry } from './catalog.ts'
export { LspStdioConfig, ServerConfig } from './config.ts'
export { StdioLspProvider } from './provider.ts'
export { UnavailableLspProvider } from './unavailable.ts'

export const name = 'lsp-stdio'
/** Several rows may each bring their own servers. */
export const reusable = true
export const inject = { lsp: { required: true }, fs: { required: true }, subprocess: { required: true }, readiness: { required: false }, trust: { required: false } }

export const Config = (config: unknown) => LspStdioConfig.parse(config)

/** Lookup failures that mean the server is not installed: the row stays, unavailable. Any other is a malformed command. */
const NOT_INSTALLED: ReadonlySet<string> = new Set(['SUBPROCESS_NOT_FOUND', 'SUBPROCESS_NOT_EXECUTABLE'])

/** An executable's absolute path, or why it is not installed. */
type Lookup = string | { readonly missing: string }

/**
 * Registers one provider per configured server. Activation is transactional: every executable is
 * resolved first (no process starts), then all providers register or none do. A server whose
 * executable is missing still registers, as an unavailable provider (its row says why); a command
 * that is malformed fails the load. Unloading first removes the routes, then shuts every server
 * down (awaited by the host's stop()).
 */
export async function apply(ctx: Context, config: LspStdioConfig): Promise<void> {
  const unloaded = new Error('lsp-stdio setup disposed')
  // Aborts when the plugin is unloaded while the executables are looked up; released after.
  const setup = scopeLifetime(ctx, () => unloaded)
  const entries = Object.entries(config.servers)
  const lookups = await Promise.allSettled(
    entries.map(async ([id, server]): Promise<Lookup> => {
      try {
        return await ctx.subprocess.resolveExecutable(server.command, { env: envFromConfig(server.env), signal: setup.signal })
      } catch (error) {
        if (!setup.aborted && error instanceof HarnessError && NOT_INSTALLED.has(error.code)) return { missing: error.message }
        const failure = setup.aborted ? error : new Error(`servers.${id}.command: ${errorMessage(error)}`, { cause: error })
        setup.abort(failure)
        throw failure
      }
    }),
  )
  if (setup.aborted) {
    // Unloaded half-way: nothing was registered and nothing went wrong. A rejection would reach
    // cordis after the app stopped, whose fallback prints it on stdout (a boot interrupted by ^C).
    if (setup.reason === unloaded) return
    throw setup.reason
  }
  setup.dispose()

  const launchers: (Launcher | undefined)[] = []
  const trust = trustOf(ctx)
  const providers = entries.map(([id, server], index) => {
    const lookup = (lookups[index] as PromiseFulfilledResult<Lookup>).value
    const launcher = launcherOf(id, server, lookup, trust)
    launchers.push(launcher)
    if (!launcher) return new UnavailableLspProvider(id, server, withInstall((lookup as { missing: string }).missing, server))
    return new StdioLspProvider({
      id,
      config: server,
      launcher,
      // Reads and spawns register nothing on our scope: skip cordis's per-call caller tracking.
      fs: untracked(ctx.fs),
      subprocess: untracked(ctx.subprocess),
      report: (message) => ctx.get('readiness')?.progress('lsp', id, message),
      warn: (message) => ctx.logger('lsp').warn(message),
    })
  })

  effectWithTeardown(ctx, () => {
    const routes: (() => void)[] = []
    try {
      for (const provider of providers) routes.push(ctx.lsp.registerProvider(provider))
    } catch (error) {
      for (const release of routes.reverse()) release()
      throw error
    }
    return async () => {
      // No new query may route to a provider that is draining.
      for (const release of [...routes].reverse()) release()
      const results = await Promise.allSettled(providers.map((provider) => provider.disposeAll()))
      const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
      if (failures.length === 1) throw failures[0]
      if (failures.length > 1) throw new AggregateError(failures, 'lsp-stdio provider teardown failed')
    }
  })

  // A revocation (`dsh trust --revoke`, any process) reaches the servers already running: those started
  // under the revoked decision stop, and the next query starts them untrusted. A grant restarts nothing.
  trust.onChange?.(async () => {
    await Promise.all(providers.map((provider) => (provider instanceof StdioLspProvider ? provider.trustChanged() : undefined)))
  })

  const readiness = ctx.get('readiness')
  for (const [index, provider] of providers.entries()) {
    const launcher = launchers[index]
    readiness?.register({
      surface: 'lsp',
      id: provider.id,
      configured: true,
      status: () => provider.status(),
      probe: (probe) => provider.probe(probe),
      // A launcher that may leave a workspace's own server out (an untrusted workspace) says so on a row of its own.
      ...(launcher?.untrustedRows ? { probeRows: async (probe) => [{ id: provider.id, ...(await provider.probe(probe)) }, ...launcher.untrustedRows!(provider.id)] } : {}),
    })
  }
}

/**
 * How a server starts: a TypeScript row chooses per workspace (and can do without
 * typescript-language-server); any other needs its executable. Undefined when it cannot start anywhere.
 */
function launcherOf(id: string, server: ServerConfig, lookup: Lookup, trust: TrustDecider): Launcher | undefined {
  if (server.typescript) return new TypescriptLauncher(server.typescript, server, typeof lookup === 'string' ? { executable: lookup } : { missing: lookup.missing }, trust)
  if (typeof lookup !== 'string') return undefined
  const fixed = fixedLauncher(lookup, server)
  const untrusted = Object.keys(server.untrustedEnv).length > 0 || Object.keys(server.untrustedInitializationOptions).length > 0
  const inner = untrusted ? new UntrustedEnvLauncher(fixed, id, server.untrustedEnv, server.untrustedInitializationOptions, server.readsAbove, trust) : fixed
  // A launcher (`python3 -m`, `npx`) runs the code of the directory the server starts in: gated too.
  const why = server.runsWorkspaceCode ?? launcherRunsWorkspaceCode(server.command, server.args)
  return why ? new TrustGatedLauncher(inner, id, why, server.readsAbove, trust) : inner
}

function withInstall(reason: string, server: ServerConfig): string {
  return server.install ? `${reason}; install: ${server.install}` : reason
}

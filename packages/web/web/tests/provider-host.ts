import { Context, type ForkScope, type Plugin } from 'cordis'
import CredentialService from 'dsh-core/credentials'
import FileSystem from 'dsh-core/fs'
import ReadinessService from 'dsh-core/readiness'
import SessionService from 'dsh-core/sessions'
import ToolRuntime from 'dsh-core/tools'
import WebService from 'dsh-web'
import * as toolWeb from 'dsh-tool-web'

// A host for a search provider plugin as a preset would mount it: the core services, the seam
// (pinned to the provider unless `web` says otherwise), the provider's row and the web tools.

export interface ProviderHost {
  readonly app: Context
  /** The provider plugin's fork: disposing it unloads the provider. */
  readonly fork: ForkScope
  stop(): Promise<void>
}

/** `service` replaces the seam's class (a subclass with a test clock, say). */
export async function providerHost(plugin: object, config: Record<string, unknown>, web: Record<string, unknown>, service: object = WebService): Promise<ProviderHost> {
  const mount = (app: Context, target: object, settings: unknown) => (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(target as Plugin, settings)
  const app = new Context()
  app.plugin(ToolRuntime)
  app.plugin(SessionService)
  app.plugin(FileSystem)
  app.plugin(CredentialService)
  app.plugin(ReadinessService)
  mount(app, service, web)
  const fork = mount(app, plugin, config)
  mount(app, toolWeb, { fetch: false })
  await app.start()
  await app.events.flush()
  return { app, fork, stop: () => app.stop() }
}

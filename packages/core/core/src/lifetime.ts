import { Context, ReflectService, symbols, type ForkScope } from 'cordis'
import { errorMessage } from './errors.ts'

const pending = new WeakMap<Context, Set<Promise<void>>>()

/**
 * `ctx.effect` for work whose teardown is asynchronous (child processes, connections). cordis 3 runs
 * disposers without awaiting them; this records the teardown promise on the app root so
 * `settleTeardowns(app)` — called by the host's `stop()` — can wait for it. Failures are logged.
 */
export function effectWithTeardown(ctx: Context, setup: () => () => Promise<void>): () => void {
  return ctx.effect(() => {
    const teardown = setup()
    return () => {
      const root = ctx.root
      let set = pending.get(root)
      if (!set) pending.set(root, (set = new Set()))
      const settled: Promise<void> = Promise.resolve()
        .then(teardown)
        .catch((error: unknown) => ctx.logger('teardown').warn(errorMessage(error)))
        .finally(() => set.delete(settled))
      set.add(settled)
    }
  })
}

/** Resolves once every teardown started through `effectWithTeardown` on this app has finished. */
export async function settleTeardowns(root: Context): Promise<void> {
  const set = pending.get(root)
  while (set?.size) await Promise.all([...set])
}

/**
 * Stops a host whose plugins were loaded as `forks`, in load order. cordis disposes first-in
 * first-out and does not await teardowns, so the plugins are unloaded in reverse, each one's
 * asynchronous teardown (a server told to shut down) finishing before the plugins it depends on go;
 * then the app stops and every process group the subprocess service started is waited for.
 */
export async function stopHost(app: Context, forks: readonly ForkScope[]): Promise<void> {
  // Taken now: once its plugin is unloaded, `app.get('subprocess')` no longer finds the service.
  const subprocess = app.get('subprocess') as { shutdown(): Promise<unknown> } | undefined
  for (const fork of [...forks].reverse()) {
    fork.dispose()
    await settleTeardowns(app)
  }
  await app.stop()
  await subprocess?.shutdown()
  await settleTeardowns(app)
}

/**
 * The service object itself, without cordis's caller tracking. Every `ctx.<service>` access and
 * every method call through it builds proxies (and an Error for its stack) so that effects land on
 * the caller's scope — tens of microseconds per call. Hot, effect-free calls (queries, reads) may
 * go through this instead. Never use it for registrations: those must stay effects of the caller.
 * `symbols.original` is cordis's exported way to reach the object behind a tracing proxy; this is
 * the one place dsh uses it.
 */
export function untracked<T>(service: T): T {
  return ((service as { [key: symbol]: unknown } | undefined)?.[symbols.original] ?? service) as T
}

/**
 * Makes `ctx.<name>` answer `service` the way cordis 3 answers its own built-in services (`ctx.reflect`,
 * `ctx.registry`, `ctx.lifecycle`): a tracing proxy whose members are handed over as they are. A
 * read of a member through it then builds nothing (no shadow context, no method proxy, no closure),
 * while `this.ctx` inside a method called through it is still the caller's context, so what the
 * method registers (`ctx.effect`) is the caller's. For a service whose methods take their caller
 * from `this.ctx` and give no callback to the caller's scope to run later.
 *
 * How, read from cordis 3.18 (`ReflectService.handler` in @cordisjs/core's reflect.ts,
 * `createTraceable` and `createShadow` in utils.ts): the context's handler answers a name that is a
 * property of the context with `getTraceable(ctx, value, noTrap = true)`, which leaves members
 * unwrapped, and builds no inject check `Error` for it; a service name it finds only in its
 * registry goes through `reflect.get`, whose proxy wraps every method read in a proxy. The tracing
 * proxy builds a shadow context for a member read when the service's `ctx` is a data property of
 * its own; as an accessor it answers the same context and no shadow is built. So the reader is a
 * property of the app's root that answers the service behind the caller's isolation key, as
 * `reflect.get` does (and asks `reflect.get` when it finds nothing there), and the service's `ctx`
 * becomes an accessor. cordis's inject check (a warning when a plugin reads a service it did not
 * inject) runs once per context that reads it. Were the property path gone (another cordis),
 * reads go the tracked way again, slower and still right.
 */
export function answerAsProperty(ctx: Context, name: string, service: object): void {
  let own = (service as { ctx: Context }).ctx
  Object.defineProperty(service, 'ctx', {
    configurable: true,
    enumerable: true,
    get: () => own,
    set: (ctx: Context) => void (own = ctx),
  })
  const root = ctx.root
  if (Object.hasOwn(root, name)) return
  const checked = new WeakSet<Context>()
  Object.defineProperty(root, name, {
    configurable: true,
    get(this: Context) {
      if (!checked.has(this)) {
        checked.add(this)
        ReflectService.checkInject(this, name, new Error(`property ${name} is not registered, declare it as \`inject\` to suppress this warning`))
      }
      const service: unknown = this[Context.store][this[Context.isolate][name]!]?.value
      // Absent (not provided yet, or disposed), or a cordis that keeps its services elsewhere: ask it.
      return service ?? untracked(this.reflect.get(name))
    },
  })
}

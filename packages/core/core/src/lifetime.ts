import { symbols, type Context, type ForkScope } from 'cordis'
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
 * Makes a read of `ctx.<service>.<member>` through cordis's caller tracking answer the member of
 * the service object itself, what `untracked(ctx.<service>).<member>` answers: no shadow context
 * and no method proxy per read, and a call through it is a plain call. Only for a member that does
 * not use the caller's scope (`ctx.tools.execute`, a function that ignores its receiver):
 * registrations must stay tracked. For the app's life; it holds nothing, each read asks the
 * service it was read from (an isolated one answers its own).
 *
 * How, read from cordis 3.18 (`createTraceable` in @cordisjs/core's utils.ts, `ReflectService.handler`
 * in reflect.ts): a tracing proxy answers `<member>` from the caller's context, under the name
 * `<service>.<member>`, when the app has an accessor of that name (`ctx.accessor`, public),
 * handing itself over as `symbols.receiver`. The context's handler builds an `Error` (its inject
 * check's stack) before it calls an accessor, unless the name is a property of the context: so the
 * same reader is also a property of the app's root. Were either gone (another cordis), reads go
 * the tracked way again, slower and still right.
 */
export function untrackedMember(ctx: Context, service: string, member: string): void {
  const name = `${service}.${member}`
  const read = (receiver: unknown): unknown => {
    const original = untracked(receiver) as Record<string, unknown> | undefined
    return original?.[member]
  }
  ctx.accessor(name, { get: read })
  if (Object.hasOwn(ctx.root, name)) return
  Object.defineProperty(ctx.root, name, {
    configurable: true,
    get(this: { [key: symbol]: unknown }) {
      return read(this[symbols.receiver])
    },
  })
}

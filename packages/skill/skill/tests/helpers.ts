import { Context, Logger, type ForkScope, type Plugin } from 'cordis'
import SkillRegistry, { type ProviderControl, type SkillCandidate, type SkillDefinition, type SkillProvider, type ViewOptions } from '../src/index.ts'

/** A cordis app with the registry mounted. */
export async function registryApp(config: unknown = {}): Promise<Context> {
  const app = new Context()
  ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(SkillRegistry as unknown as Plugin, config)
  await app.start()
  return app
}

/** Collects every log line printed while it is installed; `stop()` removes it. */
export function captureLogs(): { lines: string[]; stop(): void } {
  const lines: string[] = []
  const target = { colors: 0 as const, print: (text: string) => void lines.push(text) }
  Logger.targets.push(target)
  return {
    lines,
    stop: () => {
      const index = Logger.targets.indexOf(target)
      if (index >= 0) Logger.targets.splice(index, 1)
    },
  }
}

export function candidate(name: string, overrides: Partial<SkillCandidate> = {}): SkillCandidate {
  return {
    name,
    description: `${name} description`,
    invocation: { modelInvocable: true, userInvocable: true },
    source: 'test',
    provider: 'scripted',
    rank: 100,
    locator: { name },
    ...overrides,
  }
}

export interface ScriptedProvider extends SkillProvider {
  candidates: unknown
  complete: boolean
  listCalls: ViewOptions[]
  getCalls: { candidate: SkillCandidate; options: ViewOptions }[]
  control: ProviderControl | undefined
  /** What get() answers; default: a definition built from the candidate. */
  load: (candidate: SkillCandidate, options: ViewOptions) => Promise<unknown>
  /** What list() does; default: answer `candidates` (with `complete`). */
  answer: (options: ViewOptions) => Promise<unknown>
}

/**
 * A provider on the registry's contract that answers from a script. The registry is what is
 * under test, so this is a provider, not a stand-in for a real part.
 */
export function scripted(name = 'scripted', candidates: unknown = []): ScriptedProvider {
  const provider: ScriptedProvider = {
    name,
    candidates,
    complete: true,
    listCalls: [],
    getCalls: [],
    control: undefined,
    load: async (c) => definitionOf(c),
    answer: async () => (provider.complete ? provider.candidates : { candidates: provider.candidates, complete: false }),
    async list(options) {
      provider.listCalls.push(options)
      return (await provider.answer(options)) as SkillCandidate[]
    },
    async get(c, options) {
      provider.getCalls.push({ candidate: c, options })
      return (await provider.load(c, options)) as SkillDefinition | undefined
    },
  }
  return provider
}

export function definitionOf(c: SkillCandidate, content = `body of ${c.name}`): SkillDefinition {
  return {
    name: c.name,
    description: c.description,
    invocation: c.invocation,
    source: c.source,
    provider: c.provider,
    ...(c.resourceBase ? { resourceBase: c.resourceBase } : {}),
    content,
  }
}

/** Registers a scripted provider on `app` (global layer unless a scope is given). */
export function mount(app: Context, provider: ScriptedProvider, scope?: object): () => void {
  return app.skills.registerProvider((control) => {
    provider.control = control
    return provider
  }, scope ? { scope } : {})
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { Lifetime, type Session, type ToolResult } from 'dsh-core'
import FileSystem from 'dsh-core/fs'
import SessionService from 'dsh-core/sessions'
import ToolRuntime from 'dsh-core/tools'
import LspService, { type LspBound, type LspProvider, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import { expect } from 'vitest'
import * as toolLsp from '../src/index.ts'

/** A real host: tools runtime, fs, sessions, the seam and the tool, booted on a cordis Context. */
export interface Harness {
  readonly app: Context
  /** A fresh temporary directory (canonical path), the session's workspace. */
  readonly dir: string
  readonly session: Session
  call(args: unknown, options?: { session?: Session | undefined; signal?: AbortSignal }): Promise<ToolResult>
  stop(): Promise<void>
}

export async function boot(config: Record<string, unknown> = {}, options: { abandonAfterMs?: number } = {}): Promise<Harness> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'tool-lsp-')))
  const app = new Context()
  app.plugin(ToolRuntime, options.abandonAfterMs === undefined ? {} : { abandonAfterMs: options.abandonAfterMs })
  app.plugin(FileSystem)
  app.plugin(SessionService)
  app.plugin(LspService)
  loadToolLsp(app, config)
  await app.start()
  await app.events.flush()
  const session = app.sessions.create({ cwd: dir })
  return {
    app,
    dir,
    session,
    call: (args, callOptions = {}) => {
      const callSession = 'session' in callOptions ? callOptions.session : session
      return app.tools.execute({
        name: 'lsp',
        arguments: args,
        ...(callSession ? { session: callSession } : {}),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      })
    },
    async stop() {
      await app.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Mounts the tool plugin the way a preset row does: the namespace module plus a raw config. */
export function loadToolLsp(app: Context, config: unknown): ForkScope {
  return (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(toolLsp as unknown as Plugin, config)
}

export interface ScriptedProvider extends LspProvider {
  /** `signal`: the caller's signal, or its lifetime's (the tool passes its call's `Lifetime`). */
  readonly calls: { request: LspProviderQuery; signal: AbortSignal | undefined; bound: LspBound | undefined }[]
}

/**
 * A provider on the seam's contract that answers from a script: the seam is what the tool talks
 * to, so this is a provider, not a stand-in for a language server.
 */
export function scriptedProvider(
  answer: LspQueryResult | ((request: LspProviderQuery, signal: AbortSignal | undefined) => Promise<unknown>),
  extensionToLanguage: Record<string, string> = { '.ts': 'typescript' },
): ScriptedProvider {
  const calls: ScriptedProvider['calls'] = []
  return {
    id: 'scripted',
    extensionToLanguage,
    calls,
    async query(request, bound) {
      const signal = bound instanceof Lifetime ? bound.signal : bound
      calls.push({ request, signal, bound })
      return (typeof answer === 'function' ? answer(request, signal) : answer) as Promise<LspQueryResult>
    },
  }
}

/** Waits until the signal aborts, then rejects with its reason (what a well-behaved provider does). */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (!signal) return
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

export function range(line: number, character: number, endCharacter = character) {
  return { start: { line, character }, end: { line, character: endCharacter } }
}

export function locations(resolvedWorkspaceUri: string, items: { uri: string; line: number; character: number }[], complete = true): LspQueryResult {
  return { kind: 'locations', resolvedWorkspaceUri, complete, locations: items.map((item) => ({ uri: item.uri, range: range(item.line, item.character) })) }
}

export function textOf(result: ToolResult): string {
  return result.content.map((block) => block.text).join('')
}

export function codeOf(result: ToolResult): string | undefined {
  return result.isError ? result.error.code : undefined
}

/**
 * A zod-free quick check agrees with its schema: each sample it accepts, the schema accepts, and it
 * answers what the schema parses (`strict`: with the same keys, for an answer copied field by field).
 * It must accept `accepted` of the samples, so the agreement is not vacuous.
 */
export function expectQuickAgreesWithSchema(
  quick: (sample: unknown) => unknown,
  schema: { safeParse(sample: unknown): { success: boolean; data?: unknown } },
  samples: readonly unknown[],
  accepted: number,
  strict = false,
): void {
  for (const sample of samples) {
    const answer = quick(sample)
    if (answer === undefined) continue
    const parsed = schema.safeParse(sample)
    expect(parsed.success, JSON.stringify(sample)).toBe(true)
    if (strict) expect(answer, JSON.stringify(sample)).toStrictEqual(parsed.data)
    else expect(answer, JSON.stringify(sample)).toEqual(parsed.data)
  }
  expect(samples.filter((sample) => quick(sample) !== undefined)).toHaveLength(accepted)
}

import { Context, type ForkScope, type Plugin } from 'cordis'
import type { ToolResult } from 'dsh-core'
import SubprocessService from 'dsh-core/subprocess'
import ToolRuntime from 'dsh-core/tools'
import WebService, { type WebFetchProvider, type WebFetchRequest, type WebFetchResult, type WebSearchProvider, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import * as toolWeb from '../src/index.ts'

/** A real host: the tools runtime, the subprocess service (the converters' processes), the seam and the tool plugin on a cordis Context. */
export interface Harness {
  readonly app: Context
  readonly toolFork: ForkScope
  search(args: unknown, signal?: AbortSignal): Promise<ToolResult>
  fetch(args: unknown, signal?: AbortSignal): Promise<ToolResult>
  prompt(): string
  stop(): Promise<void>
}

/** `subprocess: false` leaves dsh-core's subprocess service out (a host that starts no process). */
export async function boot(config: unknown = {}, web: Record<string, unknown> = {}, { subprocess = true }: { subprocess?: boolean } = {}): Promise<Harness> {
  const app = new Context()
  app.plugin(ToolRuntime)
  if (subprocess) app.plugin(SubprocessService)
  ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, web)
  const toolFork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(toolWeb as unknown as Plugin, config)
  await app.start()
  await app.events.flush()
  const call = (name: string) => (args: unknown, signal?: AbortSignal) => app.tools.execute({ name, arguments: args, ...(signal ? { signal } : {}) })
  return {
    app,
    toolFork,
    search: call('web_search'),
    fetch: call('web_fetch'),
    prompt: () => app.tools.sections().map((section) => section.text).join('\n\n'),
    stop: () => app.stop(),
  }
}

type Answer<R, Q> = R | ((request: Q, signal: AbortSignal | undefined) => Promise<R>)

export interface Scripted<P> {
  readonly provider: P
  readonly calls: { request: unknown; signal: AbortSignal | undefined }[]
}

/** A provider on the seam's contract answering from a script (the seam is what the tool talks to). */
function scripted<P>(method: 'search' | 'fetch', answer: unknown, id: string): Scripted<P> {
  const calls: Scripted<P>['calls'] = []
  const provider = {
    id,
    available: () => true,
    [method]: async (request: unknown, signal: AbortSignal | undefined) => {
      calls.push({ request, signal })
      return typeof answer === 'function' ? (answer as (request: unknown, signal: unknown) => unknown)(request, signal) : answer
    },
  }
  return { calls, provider: provider as unknown as P }
}

export const searchProvider = (answer: Answer<WebSearchResult, WebSearchRequest>, id = 'scripted') => scripted<WebSearchProvider>('search', answer, id)
export const fetchProvider = (answer: Answer<WebFetchResult, WebFetchRequest>, id = 'scripted') => scripted<WebFetchProvider>('fetch', answer, id)

/** Rejects with the signal's reason once it aborts (a well-behaved provider). */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (!signal) return
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

export function textOf(result: ToolResult): string {
  return result.content.map((block) => block.text).join('')
}

export function codeOf(result: ToolResult): string | undefined {
  return result.isError ? result.error.code : undefined
}

/** Sources by URL; a bare name stands for `https://<name>.test/` (web_search keeps only http(s) sources). */
export const sources = (...urls: string[]) => urls.map((url) => ({ url: url.includes('://') ? url : `https://${url}.test/` }))

export function page(content: string, kind: 'html' | 'text' = 'html', extra: Partial<WebFetchResult> = {}): WebFetchResult {
  return { url: 'https://a.test', statusCode: 200, body: { kind, content }, truncated: false, ...extra }
}

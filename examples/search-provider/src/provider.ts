import { httpFault, WebError, type WebSearchProvider } from 'dsh-web'
import type { SearxngConfig } from './config.ts'
import { endpoint, mapResponse, searchUrl, statusMessage } from './wire.ts'

export const PROVIDER_ID = 'searxng'

/**
 * The `searxng` search provider: one `GET <base>/search?q=…&format=json` per query. `lifetime`
 * aborts whatever is in flight when the plugin unloads.
 */
export function searxngProvider(config: SearxngConfig, lifetime?: AbortSignal): WebSearchProvider {
  const search = endpoint(config.baseUrl, 'search')
  const info = endpoint(config.baseUrl, 'config')
  const headers = { accept: 'application/json', 'user-agent': config.userAgent }

  return {
    id: PROVIDER_ID,
    // The config was validated at load and nothing else is needed locally: no key, no binary.
    available: () => true,
    status: () => ({ state: 'idle', detail: `${search.href} (contacted at the first search; dsh status reads ${info.href})` }),

    /** Reads the instance's `/config` (free, runs no search) to show that it is up and what it runs. */
    async probe({ signal }) {
      try {
        const response = await fetch(info, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]) })
        if (!response.ok) {
          await response.body?.cancel()
          return { state: 'unavailable', detail: `${info.href} answered HTTP ${response.status}` }
        }
        return { state: 'ready', detail: describeInstance(await response.json().catch(() => undefined), config.baseUrl) }
      } catch (error) {
        return { state: 'unavailable', detail: `cannot reach SearXNG at ${config.baseUrl}: ${reason(error)}` }
      }
    },

    async search(request, signal) {
      if (signal?.aborted) throw aborted(signal)
      const budget = AbortSignal.timeout(config.timeoutMs)
      const fused = AbortSignal.any([budget, ...(signal ? [signal] : []), ...(lifetime ? [lifetime] : [])])
      try {
        const response = await fetch(searchUrl(request, config), { headers, signal: fused })
        if (!response.ok) {
          await response.body?.cancel()
          // 429 (the limiter) and 5xx say the instance cannot serve now: with a failover list, the next provider does.
          const fault = httpFault(response.status, response.headers)
          throw new WebError(statusMessage(response.status, response.statusText), 'WEB_PROVIDER_ERROR', fault ? { fault } : undefined)
        }
        const text = await readBounded(response, config.maxResponseBytes)
        return mapResponse(parseJson(text, response.headers.get('content-type')))
      } catch (error) {
        if (signal?.aborted) throw aborted(signal)
        if (lifetime?.aborted) throw new WebError('SearXNG search aborted: the provider was unloaded', 'WEB_ABORTED', { cause: error })
        if (budget.aborted) throw new WebError(`SearXNG did not answer within ${config.timeoutMs} ms (timeoutMs)`, 'WEB_SEARCH_TIMEOUT', { cause: error })
        if (error instanceof WebError) throw error
        throw new WebError(`cannot reach SearXNG at ${config.baseUrl}: ${reason(error)}`, 'WEB_PROVIDER_ERROR', { cause: error, fault: { kind: 'unavailable' } })
      }
    },
  }

  function aborted(signal: AbortSignal): WebError {
    return new WebError('SearXNG search aborted', 'WEB_ABORTED', { cause: signal.reason })
  }
}

/** `SearXNG 2024.5.1 ("my-search") at http://…: 70 engines enabled`, as far as `/config` tells. */
function describeInstance(json: unknown, baseUrl: string): string {
  const { version, instance_name: name, engines } = (typeof json === 'object' && json !== null ? json : {}) as { version?: unknown; instance_name?: unknown; engines?: unknown }
  const title = `SearXNG${typeof version === 'string' ? ` ${version}` : ''}${typeof name === 'string' && name ? ` ("${name}")` : ''} at ${baseUrl}`
  if (!Array.isArray(engines)) return title
  const enabled = engines.filter((engine) => (engine as { enabled?: unknown } | null)?.enabled !== false).length
  return `${title}: ${enabled} engines enabled`
}

function parseJson(text: string, contentType: string | null): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new WebError(`SearXNG returned a body that is not JSON (content-type ${contentType ?? 'none'})`, 'WEB_PROVIDER_ERROR')
  }
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let length = 0
  for await (const chunk of response.body) {
    length += chunk.byteLength
    if (length > maxBytes) {
      // Leaving the loop early cancels the stream, which closes the connection.
      throw new WebError(`SearXNG returned more than ${maxBytes} bytes (maxResponseBytes)`, 'WEB_PROVIDER_ERROR')
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** fetch() hides the socket error in `cause` (`fetch failed` ← `connect ECONNREFUSED …`). */
function reason(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause
  const inner = cause instanceof Error ? cause.message : undefined
  return inner ?? (error instanceof Error ? error.message : String(error))
}

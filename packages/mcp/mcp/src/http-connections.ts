import type { FetchLike } from '@modelcontextprotocol/client'

/** The HTTP connections of one remote transport: its own pool, closed with it. */
export interface HttpConnections {
  readonly fetch: FetchLike
  /** Drops every connection (the transport has closed). */
  close(): Promise<void>
}

/**
 * A pool of its own (undici, loaded on the first remote connection) whose idle connections are
 * reused for at most `keepAliveMs`, whatever the server's `Keep-Alive` hint says. A server closes
 * an idle connection on its own clock, and a request sent on it as it does so is lost: reusing a
 * connection only while it is well inside the server's idle limit (Node's and uvicorn's 5 s,
 * gunicorn's 2 s) keeps requests out of that race.
 */
export async function openHttpConnections(keepAliveMs: number): Promise<HttpConnections> {
  const { Agent, fetch } = await import('undici')
  const dispatcher = new Agent({ keepAliveTimeout: keepAliveMs, keepAliveMaxTimeout: keepAliveMs })
  return {
    // undici's own types describe the same fetch as the DOM's.
    fetch: ((url, init) => fetch(url as string | URL, { ...(init as object), dispatcher })) as FetchLike,
    close: () => dispatcher.destroy(),
  }
}

import { createRequire } from 'node:module'
import { lazy } from 'dsh-core'
import type { LRUCache } from 'lru-cache'
import type { FetchValue } from './fetch.ts'

/**
 * lru-cache, loaded by the first cache that stores or looks up anything: importing it reads
 * `performance`, which loads Node's perf_hooks, and a process that fetches nothing (`dsh tools`)
 * needs neither (issue 27).
 */
const lruCache = lazy(() => (createRequire(import.meta.url)('lru-cache') as typeof import('lru-cache')).LRUCache)

export interface FetchCacheSettings {
  /** How long an answer is reused; 0 turns the cache off. */
  readonly ttlMs: number
  /** Memory the cached answers may take (their text counted at two bytes a character). */
  readonly maxBytes: number
}

/** A clock for the cache's ages; `performance` unless a test brings its own. */
export interface Clock {
  now(): number
}

/**
 * Recent `web_fetch` answers, least recently used first out: the same URL asked again within
 * `ttlMs` (with the same conversion) is answered from memory. Only whole successes are kept: no
 * error status, nothing truncated. An answer is found by the URL asked for and by the URL it came
 * from after redirects.
 */
export class FetchCache {
  /** Made on first use (see `lruCache`); none when the cache is off. */
  private readonly entries: (() => LRUCache<string, FetchValue>) | undefined

  constructor(settings: FetchCacheSettings, clock?: Clock) {
    if (settings.ttlMs === 0) return
    this.entries = lazy(
      () =>
        new (lruCache())<string, FetchValue>({
          ttl: settings.ttlMs,
          maxSize: settings.maxBytes,
          sizeCalculation: sizeOf,
          // Expired entries are dropped when met, without a timer per entry.
          ttlAutopurge: false,
          // Read the clock on every check instead of lru-cache's timer-refreshed copy of it.
          ttlResolution: 0,
          ...(clock ? { perf: clock } : {}),
        }),
    )
  }

  get(url: string, mainContent: boolean): FetchValue | undefined {
    return this.entries?.().get(key(url, mainContent))
  }

  /** Keeps `value` for `requestedUrl` and its final URL, if it is a whole 2xx answer. */
  put(requestedUrl: string, value: FetchValue, mainContent: boolean): void {
    if (!this.entries || value.truncated || value.statusCode < 200 || value.statusCode > 299) return
    const entries = this.entries()
    entries.set(key(value.url, mainContent), value)
    if (requestedUrl !== value.url) entries.set(key(requestedUrl, mainContent), value)
  }
}

/** The conversion options are part of the key: a main-content answer is not the whole page. */
function key(url: string, mainContent: boolean): string {
  return `${mainContent ? 'main' : 'full'} ${url}`
}

function sizeOf(value: FetchValue): number {
  // lru-cache refuses a size of 0.
  return 2 * (value.url.length + value.body.content.length + (value.markdown?.length ?? 0)) + 64
}

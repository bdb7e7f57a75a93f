import type { CapabilityStatus, Lifetime, ProbeContext } from 'dsh-core'

export interface WebSearchRequest {
  /** Exactly one query; multi-query fan-out lives in the tool. */
  readonly query: string
  /** The seam cuts `sources` to this many (and marks the result truncated). Omitted: no bound. */
  readonly maxResults?: number
}

export interface WebSearchSource {
  readonly url: string
  /** Optional fields are omitted, never empty or null. */
  readonly title?: string
  readonly snippet?: string
  /** The provider's date string, passed through unparsed. */
  readonly publishedAt?: string
}

export interface WebSearchResult {
  /** An answer the provider generated, when it makes one. */
  readonly content?: string
  readonly sources: readonly WebSearchSource[]
  /** True when the seam, the provider or the tool's merge dropped sources. */
  readonly truncated: boolean
  /** Set by the seam: the id of the provider that served the search. A provider leaves it out. */
  readonly provider?: string
  /**
   * Set by the seam when a failover list passed providers over before one served: each with its
   * state and why (`failing`: its key was refused …). Omitted when none was. A provider leaves it out.
   */
  readonly skipped?: readonly SkippedProvider[]
}

/** A provider a search passed over, as `dsh status` would describe it. */
export interface SkippedProvider {
  readonly id: string
  readonly state: 'no_credential' | 'cooling_down' | 'failing' | 'unavailable'
  readonly reason: string
}

export interface WebFetchRequest {
  readonly url: string
}

/**
 * A closed union: consumers switch on `kind` exhaustively, so a new arm fails compilation until
 * every consumer handles it. Each arm is its own type so they can diverge.
 */
export type WebFetchBody = WebFetchHtmlBody | WebFetchTextBody | WebFetchPdfBody
export interface WebFetchHtmlBody {
  readonly kind: 'html'
  readonly content: string
}
export interface WebFetchTextBody {
  readonly kind: 'text'
  readonly content: string
}
/** A PDF's bytes, whole: a PDF cannot be read in part, so a provider refuses one it cannot hold (`WEB_FETCH_TOO_LARGE`). */
export interface WebFetchPdfBody {
  readonly kind: 'pdf'
  readonly bytes: Uint8Array
}

export interface WebFetchResult {
  /** The final URL after the redirects that were followed, WHATWG-serialised. */
  readonly url: string
  /** A 404 or 500 is a result, not an error: the status is the resource's state. */
  readonly statusCode: number
  readonly body: WebFetchBody
  /** True when the provider cut the body (by bytes or characters), or it is `incomplete`. */
  readonly truncated: boolean
  /**
   * Set when the body stopped arriving before its end and this is the text that had arrived (an
   * HTML or text body; a PDF cannot be read in part): the provider's own deadline ran out while it
   * streamed, or the connection was closed under it. Omitted for a whole body. A caller's abort is
   * never a result: it stays `WEB_ABORTED`.
   */
  readonly incomplete?: WebFetchIncomplete
}

/** Why a fetch's body is the part that arrived, as a code and one line a reader can be shown. */
export interface WebFetchIncomplete {
  /** `WEB_FETCH_TIMEOUT`: the provider's deadline ran out mid-body; `WEB_FETCH_CUT`: the connection closed (reset, ended) or broke the protocol before the body's end. */
  readonly code: 'WEB_FETCH_TIMEOUT' | 'WEB_FETCH_CUT'
  /** What happened, with how much had arrived: `the body broke off after 2048 bytes, before its end (read ECONNRESET)`. */
  readonly reason: string
}

export interface WebProviderBase {
  /** Unique within its kind; a search and a fetch provider may share one. */
  readonly id: string
  /**
   * Cheap, local and synchronous: does the config hold together, is a key configured. Never
   * touches the network. Selection calls it on every request.
   */
  available(): boolean
  /** What `dsh status` shows without side effects. Default: `available()` as ready / unavailable. */
  status?(): CapabilityStatus
  /** An active check for `dsh status` (resolve the key, …). Must not call the provider's API. */
  probe?(context: ProbeContext): Promise<CapabilityStatus>
}

export interface WebSearchProvider extends WebProviderBase {
  /** Rejects with a `WebError`. The caller's signal arrives as the same object. */
  search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult>
  /**
   * Optional: the same search, bounded by the caller's dsh-core `Lifetime` rather than a signal (a
   * tool call's, arriving as the same object). Without it the seam hands `search` the lifetime's signal.
   */
  searchWithin?(request: WebSearchRequest, lifetime: Lifetime): Promise<WebSearchResult>
}

export interface WebFetchProvider extends WebProviderBase {
  /** Rejects with a `WebError`; a non-2xx response resolves. */
  fetch(request: WebFetchRequest, signal?: AbortSignal): Promise<WebFetchResult>
  /**
   * Optional: the same fetch, bounded by the caller's dsh-core `Lifetime` rather than a signal. A
   * caller that holds a lifetime (a tool call) then makes no `AbortSignal` for the fetch; without
   * it the seam hands `fetch` the lifetime's signal.
   */
  fetchWithin?(request: WebFetchRequest, lifetime: Lifetime): Promise<WebFetchResult>
}

/**
 * What bounds a fetch or a search: the caller's signal, or its lifetime (a tool call's), which a
 * provider's `fetchWithin` / `searchWithin` gets as the same object.
 */
export type WebBound = AbortSignal | Lifetime

export type WebProviderKind = 'search' | 'fetch'

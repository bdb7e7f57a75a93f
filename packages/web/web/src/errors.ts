import { HarnessError } from 'dsh-core'
import type { ProviderFault } from './fault.ts'

/**
 * The codes the web surface raises. Providers may add their own (the set is open for them), so
 * consumers must tolerate a code they do not know; these are the ones every web package shares.
 */
export const WebErrorCode = {
  // Selection and registry (the seam).
  /** No registered provider of that kind is usable (none registered, or all unavailable). */
  WEB_PROVIDER_UNAVAILABLE: 'WEB_PROVIDER_UNAVAILABLE',
  /** The configured provider id is not registered. */
  WEB_PROVIDER_CONFIGURED_MISSING: 'WEB_PROVIDER_CONFIGURED_MISSING',
  /** The configured provider is registered but reports itself unavailable; there is no fallback. */
  WEB_PROVIDER_CONFIGURED_UNAVAILABLE: 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE',
  /** Several usable providers and none configured. */
  WEB_PROVIDER_AMBIGUOUS: 'WEB_PROVIDER_AMBIGUOUS',
  /** A provider with that id is already registered for that kind. */
  WEB_DUPLICATE_PROVIDER: 'WEB_DUPLICATE_PROVIDER',
  /** A provider registration is malformed (blank id, missing method). */
  WEB_INVALID_PROVIDER: 'WEB_INVALID_PROVIDER',
  // Shared by providers.
  /** The caller cancelled. */
  WEB_ABORTED: 'WEB_ABORTED',
  /** Any other provider or network failure (DNS, refused connection, TLS, bad status, bad body). */
  WEB_PROVIDER_ERROR: 'WEB_PROVIDER_ERROR',
  // Fetch transport.
  WEB_INVALID_URL: 'WEB_INVALID_URL',
  /** Refused by policy: credentials in the URL, or the network guard (private, loopback, metadata …). */
  WEB_BLOCKED_URL: 'WEB_BLOCKED_URL',
  WEB_REDIRECT_BLOCKED: 'WEB_REDIRECT_BLOCKED',
  /** A body too large to use in part: a PDF over the provider's cap (other bodies are truncated instead). */
  WEB_FETCH_TOO_LARGE: 'WEB_FETCH_TOO_LARGE',
  WEB_FETCH_TIMEOUT: 'WEB_FETCH_TIMEOUT',
  WEB_UNSUPPORTED_CONTENT_TYPE: 'WEB_UNSUPPORTED_CONTENT_TYPE',
  // Reading a PDF (dsh-tool-web).
  /** The PDF needs a password. */
  WEB_PDF_ENCRYPTED: 'WEB_PDF_ENCRYPTED',
  /** The PDF has pages but no text layer (scanned images without OCR). */
  WEB_PDF_NO_TEXT: 'WEB_PDF_NO_TEXT',
  /** The body is not a PDF the reader can open (malformed, cut short). */
  WEB_PDF_INVALID: 'WEB_PDF_INVALID',
  // Search providers.
  /** The provider's API key could not be found; the message lists the remedies. */
  WEB_PROVIDER_CREDENTIAL_MISSING: 'WEB_PROVIDER_CREDENTIAL_MISSING',
  /** The API refused the provider's key (401/403); that key is not sent again until it changes. */
  WEB_PROVIDER_KEY_REFUSED: 'WEB_PROVIDER_KEY_REFUSED',
  /** The search provider's own deadline ran out. */
  WEB_SEARCH_TIMEOUT: 'WEB_SEARCH_TIMEOUT',
} as const
export type WebErrorCode = (typeof WebErrorCode)[keyof typeof WebErrorCode]

/**
 * Every failure of the web surface. Route on `code`; third-party providers may use codes of their own.
 * A search provider sets `fault` when the failure is its own, not the request's (rate limited,
 * down, its key refused): the seam then cools it down and tries the next provider, unless the
 * failure is `partial`.
 */
export class WebError extends HarnessError<WebErrorCode | (string & {})> {
  readonly fault: ProviderFault | undefined
  /**
   * The provider had begun delivering a result (a success answer was arriving) when it failed. The
   * seam still cools the provider down for its fault, but never hands the search to another
   * provider: the first one may have charged for it, and a second answer would not be the one the
   * caller started to receive.
   */
  readonly partial: boolean

  constructor(message: string, code: WebErrorCode | (string & {}), options?: { cause?: unknown; fault?: ProviderFault; partial?: boolean }) {
    super(message, code, options?.cause === undefined ? undefined : { cause: options.cause })
    this.fault = options?.fault
    this.partial = options?.partial ?? false
  }
}

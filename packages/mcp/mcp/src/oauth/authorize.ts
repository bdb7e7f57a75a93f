import { auth, IssuerMismatchError, type OAuthClientProvider } from '@modelcontextprotocol/client'

type AuthOptions = Parameters<typeof auth>[1]

/**
 * `auth()`, with the one 2025-03-26 layout the SDK's RFC 8414 issuer echo refuses: a server without
 * protected-resource metadata keeps its authorization server at its own origin, and that revision
 * let the metadata served at the origin's root name an issuer with a path there
 * (`https://host/oauth`). The check is waived only for that case — the metadata came from the
 * server's origin root (the SDK's fallback when no protected-resource metadata names a server) and
 * its issuer is on the same origin; any other mismatch stays fatal.
 */
export async function authorize(provider: OAuthClientProvider, options: AuthOptions): ReturnType<typeof auth> {
  try {
    return await auth(provider, options)
  } catch (error) {
    if (!isLegacyOriginIssuer(error, options.serverUrl)) throw error
    return auth(provider, { ...options, skipIssuerMetadataValidation: true })
  }
}

function isLegacyOriginIssuer(error: unknown, serverUrl: string | URL): boolean {
  if (!(error instanceof IssuerMismatchError) || error.kind !== 'metadata' || !error.received) return false
  const root = new URL('/', serverUrl)
  if (error.expected !== root.href) return false
  try {
    return new URL(error.received).origin === root.origin
  } catch {
    return false
  }
}

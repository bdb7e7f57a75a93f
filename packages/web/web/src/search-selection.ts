import { assertNever } from 'dsh-core'

/**
 * How search picks its provider, as configured. A closed union: every consumer switches on `kind`.
 *
 * - `sole`: nothing configured; the one usable provider is used (several are ambiguous).
 * - `pinned`: one id; that provider or a coded failure, never another.
 * - `ordered`: a failover list; the first provider that can serve does, the others stand by.
 * - `auto`: every registered provider as a failover list, in id order.
 */
export type SearchSelection =
  | { readonly kind: 'sole' }
  | { readonly kind: 'pinned'; readonly id: string; readonly from: SelectionSource }
  | { readonly kind: 'ordered'; readonly ids: readonly string[]; readonly from: SelectionSource }
  | { readonly kind: 'auto'; readonly from: SelectionSource }

/** Where the selection came from, for messages and status rows. */
export type SelectionSource = 'searchProvider' | 'DSH_WEB_SEARCH_PROVIDER'

export const AUTO = 'auto'
export const SEARCH_ENV = 'DSH_WEB_SEARCH_PROVIDER'

/**
 * The selection from config, else from `DSH_WEB_SEARCH_PROVIDER` (read once, when the service
 * starts): an id, `auto`, or a failover list (in the variable, comma-separated). Config wins; an
 * empty variable is unset.
 */
export function searchSelection(config: { readonly searchProvider?: string | readonly string[] | undefined }, env: NodeJS.ProcessEnv = process.env): SearchSelection {
  const configured = config.searchProvider
  if (Array.isArray(configured)) return { kind: 'ordered', ids: configured, from: 'searchProvider' }
  if (typeof configured === 'string') return single(configured, 'searchProvider')
  const fromEnv = env[SEARCH_ENV]?.trim()
  if (!fromEnv) return { kind: 'sole' }
  if (!fromEnv.includes(',')) return single(fromEnv, SEARCH_ENV)
  const ids = [...new Set(fromEnv.split(',').map((id) => id.trim()).filter((id) => id && id !== AUTO))]
  return ids.length ? { kind: 'ordered', ids, from: SEARCH_ENV } : { kind: 'sole' }
}

function single(id: string, from: SelectionSource): SearchSelection {
  return id === AUTO ? { kind: 'auto', from } : { kind: 'pinned', id, from }
}

/** The ids that get a `dsh status` row before any provider registers: the ones the operator named. */
export function namedIds(selection: SearchSelection): readonly string[] {
  switch (selection.kind) {
    case 'pinned':
      return [selection.id]
    case 'ordered':
      return selection.ids
    case 'sole':
    case 'auto':
      return []
    default:
      return assertNever(selection, 'search selection')
  }
}

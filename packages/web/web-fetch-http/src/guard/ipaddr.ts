import { createRequire } from 'node:module'
import { lazy } from 'dsh-core'

export type { IPv4, IPv6 } from 'ipaddr.js'

/**
 * ipaddr.js, loaded when an address or range is first parsed. It is CommonJS: an `import` of it
 * has Node scan its source for exports, and its first parse compiles its patterns; a process that
 * fetches nothing and configures no ranges (`dsh tools`) needs none of it (issue 27).
 */
export const ipaddr = lazy(() => createRequire(import.meta.url)('ipaddr.js') as typeof import('ipaddr.js'))

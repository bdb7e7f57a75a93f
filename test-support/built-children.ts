/**
 * Vitest setup file (runs in every worker): the environment of the processes tests start.
 *
 * - When the global setup built the workspace, the children get `--conditions=dsh-built` in
 *   NODE_OPTIONS, so `bin/dsh.mjs` and every workspace package they import resolve to their bundles
 *   (see the `dsh-built` entries of each package's exports). The worker itself resolved its modules
 *   at startup and is unaffected: tests keep importing the sources.
 * - NODE_EXTRA_CA_CERTS is left out: Node 20 reads and parses that file at every process start,
 *   whether or not the process ever makes a TLS connection (measured with the system bundle,
 *   220 KB: `node -e 0` 0.13 → 0.075 s of CPU), and the suite starts about a thousand Node processes.
 *   No test reaches a host that needs those certificates (servers are loopback; the TLS tests
 *   pass their own `ca`). `DSH_TEST_KEEP_EXTRA_CA_CERTS=1` keeps it.
 */
import { inject } from 'vitest'
import type {} from './build.ts'

const CONDITION = '--conditions=dsh-built'

if (!process.env.DSH_TEST_CHILDREN_TSX && inject('dshBuilt') && !process.env.NODE_OPTIONS?.includes(CONDITION)) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, CONDITION].filter(Boolean).join(' ')
}

if (process.env.DSH_TEST_KEEP_EXTRA_CA_CERTS !== '1') delete process.env.NODE_EXTRA_CA_CERTS

/**
 * Vitest setup file (runs in every worker): when the global setup built the workspace, the children
 * tests start get `--conditions=dsh-built` in NODE_OPTIONS, so `bin/dsh.mjs` and every workspace
 * package they import resolve to their bundles (see the `dsh-built` entries of each package's exports). The
 * worker itself resolved its modules at startup and is unaffected: tests keep importing the sources.
 */
import { inject } from 'vitest'
import type {} from './build.ts'

const CONDITION = '--conditions=dsh-built'

if (!process.env.DSH_TEST_CHILDREN_TSX && inject('dshBuilt') && !process.env.NODE_OPTIONS?.includes(CONDITION)) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, CONDITION].filter(Boolean).join(' ')
}

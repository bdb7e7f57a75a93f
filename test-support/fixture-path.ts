/**
 * Where a test starts a fixture server: its bundle from this run's global setup when there is one
 * (fixture-bundles.ts), else its source.
 */
import { inject } from 'vitest'
import type {} from './fixture-bundles.ts'

/** The path to start for the fixture at `source` (absolute). */
export function fixturePath(source: string): string {
  return inject('fixtureBundles')?.[source] ?? source
}

import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.ts'

export default defineConfig({
  test: {
    projects,
    pool: 'forks',
    // Failure guards only, never a pass condition: tests wait for what they expect, and on two busy
    // cores a test that starts several processes and language servers can take minutes.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Real language servers are heavy; two cores run two files at a time.
    maxWorkers: 2,
    // Built once per run; the `dsh` children tests start run the build, not tsx (test-support/build.ts).
    globalSetup: ['test-support/build.ts'],
    setupFiles: ['test-support/built-children.ts'],
  },
})

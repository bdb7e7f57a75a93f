import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.ts'

export default defineConfig({
  test: {
    projects,
    pool: 'forks',
    // A worker runs its files one after another in one process, sharing the module registry: each
    // file otherwise pays a fresh process and a fresh import of cordis, zod and the workspace
    // (measured: half the CPU of the core project). Files leave no global state behind; the one
    // that mocks a module loads a fresh copy of what it tests (core/tests/fs-replace.test.ts).
    isolate: false,
    // Failure guards only, never a pass condition: tests wait for what they expect, and on two busy
    // cores a test that starts several processes and language servers can take minutes.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Real language servers are heavy; two cores run two files at a time.
    maxWorkers: 2,
    // Built once per run; the `dsh` children tests start run the build, not tsx (test-support/build.ts).
    globalSetup: ['test-support/build.ts'],
    setupFiles: ['test-support/built-children.ts', 'test-support/cpu-per-file.ts'],
  },
})

import { defineConfig } from 'vitest/config'
import LongestFirst from './test-support/sequencer.ts'
import { projects } from './vitest.workspace.ts'

/**
 * `pnpm test` without `--project` (scripts/test.mjs sets DSH_TEST_ONE_PROJECT) runs every file as
 * one project. Vitest gives each project its own module transforms and reuses a worker only for
 * the next file of the same project, so eight projects transformed the shared sources eight times
 * and started sixteen workers that each imported them again (measured: `vitest list` of every file
 * took 44.0 s of CPU as eight projects, 22.7 s as one). The projects stay for running one group.
 */
const oneProject = process.env.DSH_TEST_ONE_PROJECT === '1'

export default defineConfig({
  test: {
    projects: oneProject ? [{ extends: true as const, test: { name: 'all', include: projects.flatMap((project) => project.test.include) } }] : projects,
    // Longest files first, from a committed list rather than vitest's results cache: test-support/sequencer.ts.
    sequence: { sequencer: LongestFirst },
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

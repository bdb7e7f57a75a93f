import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.ts'

export default defineConfig({
  test: {
    projects,
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real language servers are heavy; two cores run two files at a time.
    maxWorkers: 2,
  },
})

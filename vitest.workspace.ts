/** The test projects: one per package group, so `vitest run --project lsp` runs one surface. */
export const projects = [
  { extends: true as const, test: { name: 'core', include: ['packages/core/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'cli', include: ['packages/cli/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'lsp', include: ['packages/lsp/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'web', include: ['packages/web/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'skill', include: ['packages/skill/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'mcp', include: ['packages/mcp/*/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'pack', include: ['scripts/pack-check/tests/**/*.test.ts'] } },
  { extends: true as const, test: { name: 'examples', include: ['examples/*/tests/**/*.test.ts'] } },
]

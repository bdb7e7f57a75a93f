/**
 * The order test files start in: longest first, so that the run does not end on one long file with
 * the other worker idle. The lengths are SLOW_FILES below, the same on every machine; files not in it
 * follow, largest first, as vitest has them. Files stay grouped by project (a worker is reused only
 * for the next file of its project), as in vitest's BaseSequencer.
 *
 * Vitest's results cache is not read. With it, the order followed the last run's durations, and
 * `CI=true pnpm test` in a clone that had run the suite before took 392.0 s and 396.5 s; in the same
 * clone with the cache moved away, 349.0 s, and 348.5 s in a fresh clone's CI (twentieth round,
 * bench/RESULTS.md). A file's last duration depends on which file the other worker ran beside it,
 * so ordering by it pairs heavy files with each other.
 */
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Wall seconds of the files that take longest (the sixteenth round's quiet `pnpm test`, 373.6 s,
 * vitest's results cache; bench/RESULTS.md): only their order matters, not the figures. Files of a
 * few seconds need no entry; a stale entry only moves a file earlier.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'packages/cli/cli/tests/trust-hostile.test.ts': 38.4,
  'packages/cli/cli/tests/mcp-list-rows.test.ts': 33.1,
  'packages/mcp/mcp/tests/supervision.test.ts': 29.8,
  'packages/lsp/tool-lsp/tests/real/rename.test.ts': 21.8,
  'packages/lsp/lsp-stdio/tests/instance.test.ts': 20.5,
  'packages/cli/cli/tests/robustness.test.ts': 18.9,
  'packages/cli/cli/tests/serve-http.test.ts': 16.2,
  'packages/lsp/lsp-stdio/tests/real/typescript.test.ts': 14.2,
  'packages/cli/cli/tests/dogfood.test.ts': 13.2,
  'packages/lsp/lsp-stdio/tests/real/catalog.test.ts': 13.1,
  'packages/mcp/mcp/tests/mcp-command.test.ts': 11.9,
  'packages/web/web/tests/leak.test.ts': 11.4,
  'scripts/pack-check/tests/prepack.test.ts': 11.4,
  'packages/mcp/mcp/tests/token-store-lock.test.ts': 10.7,
  'packages/web/tool-web/tests/conversion-pool.test.ts': 10.6,
  'packages/cli/cli/tests/serve-input.test.ts': 10.6,
  'packages/cli/cli/tests/boot.test.ts': 10.4,
  'packages/cli/cli/tests/serve.test.ts': 9.9,
  'examples/lsp-server/tests/bash.test.ts': 9.1,
  'packages/mcp/mcp/tests/cli.test.ts': 9.1,
  'packages/cli/cli/tests/serve-http-coding.test.ts': 8.9,
  'packages/cli/cli/tests/serve-http-safety.test.ts': 8.8,
  'packages/cli/cli/tests/serve-http-scale.test.ts': 8.1,
  'packages/cli/cli/tests/lazy-load.test.ts': 7.9,
  'packages/lsp/lsp-stdio/tests/real/tsserver-crash.test.ts': 7.8,
  'packages/core/core/tests/subprocess.test.ts': 7.5,
  'packages/cli/cli/tests/serve-revisions.test.ts': 7.4,
  'packages/lsp/lsp-stdio/tests/fake-server.test.ts': 7.4,
  'packages/lsp/lsp-stdio/tests/supervision.test.ts': 7.3,
  'packages/lsp/lsp-stdio/tests/capabilities.test.ts': 7.2,
  'packages/lsp/tool-lsp/tests/real/stale-diagnostics.test.ts': 7.1,
  'packages/cli/cli/tests/serve-http-auth.test.ts': 7.0,
  'packages/web/tool-web/tests/long-pages.test.ts': 6.7,
  'packages/mcp/mcp/tests/serve-questions.test.ts': 6.7,
  'packages/lsp/lsp-stdio/tests/provider.test.ts': 6.5,
  'packages/web/tool-web/tests/conversion-abort.test.ts': 6.4,
  'packages/mcp/mcp/tests/stdio.test.ts': 6.1,
  'packages/web/tool-web/tests/dsh.test.ts': 6.1,
  'packages/lsp/tool-lsp/tests/real/capabilities.test.ts': 5.9,
  'packages/mcp/mcp/tests/deferral.test.ts': 5.8,
  'packages/cli/cli/tests/serve-skills.test.ts': 5.8,
  'packages/lsp/tool-lsp/tests/dsh.test.ts': 5.8,
  'packages/mcp/mcp/tests/progress.test.ts': 5.6,
  'packages/core/core/tests/lifetime-primitive.test.ts': 5.5,
  'packages/lsp/tool-lsp/tests/real/proofs.test.ts': 5.4,
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root
    const known = new Map<TestSpecification, number>()
    for (const spec of files) known.set(spec, SLOW_FILES[relative(root, spec.moduleId)] ?? 0)
    // vitest's order (projects by name, then its own) breaks ties: among files of unknown length, the largest first.
    const base = await super.sort(files)
    const rank = new Map(base.map((spec, index) => [spec, index]))
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1
      return known.get(b)! - known.get(a)! || rank.get(a)! - rank.get(b)!
    })
  }
}

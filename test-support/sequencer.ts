/**
 * The order test files start in: longest first, so that the run does not end on one long file with
 * the other worker idle. Vitest's own order is longest first only where its results cache knows
 * the file; a fresh clone (CI) has no cache, and vitest then starts the largest files first, which
 * is not the same (a long file is one that waits on real servers, not one with many lines).
 * Known durations come from the cache when it has the file (under its own project, or under the
 * group it belongs to: a `pnpm test` run is one project, `all`, and a clone's cache may hold the
 * groups' runs), else from SLOW_FILES below; files in
 * neither follow, largest first, as vitest has them. Files stay grouped by project (a worker is
 * reused only for the next file of its project), as in vitest's BaseSequencer.
 */
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { projects } from '../vitest.workspace.ts'

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
    for (const spec of files) {
      const path = relative(root, spec.moduleId)
      const cached = [spec.project.name, ...projects.map((project) => project.test.name)].map((name) => this.ctx.cache.getFileTestResults(`${name}:${path}`)).find(Boolean)
      const ms = cached?.duration ?? (SLOW_FILES[path] ?? 0) * 1000
      known.set(spec, ms)
    }
    // vitest's order (projects by name, then its own) breaks ties: among files of unknown length, the largest first.
    const base = await super.sort(files)
    const rank = new Map(base.map((spec, index) => [spec, index]))
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1
      return known.get(b)! - known.get(a)! || rank.get(a)! - rank.get(b)!
    })
  }
}

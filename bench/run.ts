import { benchFs } from './fs.ts'
import { benchLeak } from './leak.ts'
import { benchLsp } from './lsp.ts'
import { benchLspDiagnostics } from './lsp-diagnostics.ts'
import { benchLspDiagnosticsProfile } from './lsp-diagnostics-profile.ts'
import { benchLspFixedCost } from './lsp-fixed-cost.ts'
import { benchLspFraming } from './lsp-framing.ts'
import { benchLspPositions } from './lsp-positions.ts'
import { benchLspRefactor } from './lsp-refactor.ts'
import { benchMcp } from './mcp.ts'
import { benchServe } from './serve.ts'
import { benchServeHttp } from './serve-http.ts'
import { benchSkill } from './skill.ts'
import { benchSkillEmptyDirs } from './skill-empty-dirs.ts'
import { benchStartup } from './startup.ts'
import { benchTools } from './tools.ts'
import { benchToolSearch } from './tool-search.ts'
import { benchWeb } from './web.ts'
import { benchWebCpu } from './web-cpu.ts'
import { benchWebHtml } from './web-html.ts'
import { benchWebLoop } from './web-loop.ts'
import { benchWebPool } from './web-pool.ts'
import { benchWebSearch } from './web-search.ts'
import { benchWebProfile } from './web-profile.ts'

// `pnpm bench [name]`: runs the benchmarks and prints our figure, the baseline measured in the same run, and the ratio.
const benches: Record<string, () => Promise<string[]>> = {
  lsp: benchLsp,
  'lsp-diagnostics': benchLspDiagnostics,
  'lsp-diagnostics-profile': benchLspDiagnosticsProfile,
  'lsp-fixed-cost': benchLspFixedCost,
  'lsp-positions': benchLspPositions,
  'lsp-refactor': benchLspRefactor,
  'lsp-framing': benchLspFraming,
  web: benchWeb,
  'web-cpu': benchWebCpu,
  'web-html': benchWebHtml,
  'web-loop': benchWebLoop,
  'web-pool': benchWebPool,
  'web-search': benchWebSearch,
  'web-profile': benchWebProfile,
  mcp: benchMcp,
  skill: benchSkill,
  'skill-empty-dirs': benchSkillEmptyDirs,
  // The stdio hop against ctx.tools.execute, then the HTTP hop against the stdio hop and throughput.
  serve: async () => [...(await benchServe()), ...(await benchServeHttp())],
  'serve-http': benchServeHttp,
  fs: benchFs,
  leak: benchLeak,
  startup: benchStartup,
  tools: benchTools,
  'tool-search': benchToolSearch,
}
const selected = process.argv.slice(2)
for (const name of selected.length ? selected : Object.keys(benches)) {
  const bench = benches[name]
  if (!bench) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(benches).join(', ')}`)
    process.exit(2)
  }
  console.log(`## ${name}`)
  for (const line of await bench()) console.log(line)
}

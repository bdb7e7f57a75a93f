import { benchLsp } from './lsp.ts'
import { benchLspFraming } from './lsp-framing.ts'

// `pnpm bench [name]`: runs the benchmarks and prints our figure, the baseline measured in the same run, and the ratio.
const benches: Record<string, () => Promise<string[]>> = { lsp: benchLsp, 'lsp-framing': benchLspFraming }
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

// prepack / postpack of dsh-cli: the published package carries the repository's named presets, so an
// installed `dsh` runs `--preset base|coding` against the plugin packages installed beside it.
//
// Each preset gets its twin beside it (`base.yml.json`: its text and its rows already parsed, made by
// dsh-core's own preset reader, which the build before this step compiled to dist/), so an installed
// `dsh` does not parse the YAML on every start; an edited preset no longer matches its twin and is
// parsed as before (issue 27 item 5).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const NAMED = ['base.yml', 'coding.yml']
const source = fileURLToPath(new URL('../../../../presets/', import.meta.url))
const target = fileURLToPath(new URL('../presets/', import.meta.url))

const mode = process.argv[2]
if (mode === 'copy') {
  mkdirSync(target, { recursive: true })
  const { TWIN_SUFFIX } = await import(new URL('../../../core/core/dist/preset/rows.js', import.meta.url).href)
  const { presetTwin } = await import(new URL('../../../core/core/dist/preset/yaml-text.js', import.meta.url).href)
  for (const file of NAMED) {
    copyFileSync(source + file, target + file)
    writeFileSync(target + file + TWIN_SUFFIX, presetTwin(readFileSync(target + file, 'utf8'), `preset ${file}`))
  }
} else if (mode === 'clean') {
  rmSync(target, { recursive: true, force: true })
} else {
  console.error(`usage: node scripts/pack-presets.mjs copy|clean (got ${mode ?? 'nothing'})`)
  process.exit(2)
}

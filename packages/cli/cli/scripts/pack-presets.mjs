// prepack / postpack of dsh-cli: the published package carries the repository's named presets, so an
// installed `dsh` runs `--preset base|coding` against the plugin packages installed beside it.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const NAMED = ['base.yml', 'coding.yml']
const source = fileURLToPath(new URL('../../../../presets/', import.meta.url))
const target = fileURLToPath(new URL('../presets/', import.meta.url))

const mode = process.argv[2]
if (mode === 'copy') {
  mkdirSync(target, { recursive: true })
  for (const file of NAMED) copyFileSync(source + file, target + file)
} else if (mode === 'clean') {
  rmSync(target, { recursive: true, force: true })
} else {
  console.error(`usage: node scripts/pack-presets.mjs copy|clean (got ${mode ?? 'nothing'})`)
  process.exit(2)
}

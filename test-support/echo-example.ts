/**
 * The example echo plugin (examples/echo/echo.ts) compiled to JavaScript once per run, with a copy of
 * its preset naming the compiled file. On Node 20 a `dsh` child that loads a TypeScript plugin
 * registers tsx's module hooks first, about 0.45 s of CPU, which most CLI tests spend only to get an
 * `echo` tool. They use this copy; the tests about loading TypeScript keep the original.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

const ECHO = fileURLToPath(new URL('../examples/echo/', import.meta.url))
/** Beside the original, so `zod` resolves the same way; `.bundle-*` directories are ignored by git. */
const COMPILED = join(ECHO, '.bundle-test')

export const COMPILED_ECHO_PRESET = join(COMPILED, 'preset.yml')
export const COMPILED_ECHO_PLUGIN = join(COMPILED, 'echo.mjs')

export async function compileEchoExample(): Promise<void> {
  const source = readFileSync(join(ECHO, 'echo.ts'), 'utf8')
  const preset = readFileSync(join(ECHO, 'preset.yml'), 'utf8')
  if (!preset.includes('name: ./echo.ts\n')) throw new Error('examples/echo/preset.yml no longer names ./echo.ts: update test-support/echo-example.ts')
  const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20' })
  mkdirSync(COMPILED, { recursive: true })
  writeFileSync(COMPILED_ECHO_PLUGIN, code)
  writeFileSync(COMPILED_ECHO_PRESET, preset.replace('name: ./echo.ts\n', 'name: ./echo.mjs\n'))
}

import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { PREPACK } from '../workspace.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const PACKAGES = readdirSync(join(ROOT, 'packages')).flatMap((group) => readdirSync(join(ROOT, 'packages', group)).map((name) => join(ROOT, 'packages', group, name)))

/** Runs a packer as a user's shell would: without the variables the test runner's pnpm set. */
function packer(command: string, args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$)/.test(name)))
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 5 * 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, output: `${stdout}${stderr}` })
    })
  })
}

const scratch: string[] = []
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-prepack-'))
  scratch.push(dir)
  return dir
}

describe('prepack: a tarball carries a fresh build or is not made', () => {
  it('every package under packages/ runs scripts/prepack.mjs before packing', () => {
    const without = PACKAGES.filter((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
      return !manifest.scripts?.prepack?.startsWith(PREPACK)
    })
    expect(without.map((dir) => dir.slice(ROOT.length))).toEqual([])
  })

  it.each([
    ['npm pack', ['pack']],
    ['npm publish --dry-run', ['publish', '--dry-run']],
  ])('%s in a package folder is refused with a message saying to use pnpm', async (_, args) => {
    const destination = tempDir()
    const { code, output } = await packer('npm', [...args, '--pack-destination', destination], join(ROOT, 'packages/web/web'))
    expect(code).not.toBe(0)
    expect(output).toContain('dsh-web: not packed: npm/')
    expect(output).toContain('Use pnpm')
    expect(readdirSync(destination)).toEqual([])
  })

  /**
   * A package outside the workspace wired like ours: sources in src/, publishConfig pointing at dist/.
   * `lib` as ours (tsconfig.base.json): without it tsc also reads the DOM's declarations, and its
   * build, which each pnpm pack below runs, took 5.5 s of CPU instead of 1.9 s.
   */
  function unbuiltPackage(exportsTarget: string): string {
    const dir = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'index.ts'), 'export const answer: number = 42\n')
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', lib: ['es2023'], declaration: true, composite: true, types: [], rootDir: 'src', outDir: 'dist', tsBuildInfoFile: 'dist/.tsbuildinfo' }, include: ['src'] }))
    const manifest = {
      name: 'prepack-probe',
      version: '1.0.0',
      type: 'module',
      scripts: { prepack: `node ${join(ROOT, 'scripts/prepack.mjs')}` },
      exports: { '.': './src/index.ts' },
      files: ['dist'],
      publishConfig: { exports: { '.': { types: './dist/index.d.ts', default: exportsTarget } } },
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
    return dir
  }

  it('pnpm pack of a package with no dist/ builds it and packs the built files', async () => {
    const dir = unbuiltPackage('./dist/index.js')
    const destination = tempDir()
    const { code, stdout, output } = await packer('pnpm', ['pack', '--pack-destination', destination, '--json'], dir)
    expect(code, output).toBe(0)
    const files = (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { files: { path: string }[] }).files.map((file) => file.path)
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']))
  })

  it('pnpm pack is refused when the build leaves a file the published manifest names missing', async () => {
    const dir = unbuiltPackage('./dist/main.js')
    const destination = tempDir()
    const { code, output } = await packer('pnpm', ['pack', '--pack-destination', destination], dir)
    expect(code).not.toBe(0)
    expect(output).toContain('prepack-probe: not packed: the build did not produce ./dist/main.js')
    expect(readdirSync(destination)).toEqual([])
  })

  it('pnpm pack bundles the build into bundle/: relative imports inlined, zod and yaml from dsh-core, other packages left to node_modules', async () => {
    const dir = unbuiltPackage('./bundle/index.js')
    writeFileSync(join(dir, 'src', 'answer.ts'), 'export const answer: number = 42\n')
    writeFileSync(join(dir, 'src', 'modules.d.ts'), "declare module 'zod' { export const z: { number(): unknown } }\ndeclare module 'cordis' { export const Context: unknown }\n")
    writeFileSync(join(dir, 'src', 'index.ts'), "import { Context } from 'cordis'\nimport { z } from 'zod'\nimport { answer } from './answer.ts'\nexport const parts = [Context, z.number(), answer]\n")
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> }
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, allowImportingTsExtensions: true, rewriteRelativeImportExtensions: true } }))
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, files: ['dist', '!dist/**/*.js', 'bundle'] }))
    const destination = tempDir()
    const { code, stdout, output } = await packer('pnpm', ['pack', '--pack-destination', destination, '--json'], dir)
    expect(code, output).toBe(0)
    const files = (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { files: { path: string }[] }).files.map((file) => file.path)
    expect(files).toEqual(expect.arrayContaining(['bundle/index.js', 'dist/index.d.ts']))
    expect(files).not.toContain('dist/index.js')
    const bundled = readFileSync(join(dir, 'bundle', 'index.js'), 'utf8')
    expect(bundled).toContain('"dsh-core/vendor/zod"')
    expect(bundled).toContain('"cordis"')
    expect(bundled).not.toContain('./answer')
  })
})

import { readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** TypeScript 7 as the tests install it (dsh-lsp-stdio's devDependency `typescript-7`). */
export const TYPESCRIPT_7 = realpathSync(fileURLToPath(new URL('../packages/lsp/lsp-stdio/node_modules/typescript-7', import.meta.url)))

export const TYPESCRIPT_7_VERSION: string = JSON.parse(readFileSync(join(TYPESCRIPT_7, 'package.json'), 'utf8')).version

/** Its compiler binary, which `tsc --lsp --stdio` runs (what the coding preset starts for a TypeScript 7 project). */
export const TYPESCRIPT_7_COMPILER = join(dirname(createRequire(join(TYPESCRIPT_7, 'package.json')).resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`)), 'lib', 'tsc')

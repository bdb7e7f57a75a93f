import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The directory of the package a file is in: the nearest one above it holding a package.json. */
export function packageRoot(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** The running dsh-core's package directory (real path: a module's URL and a resolved name both are). */
export const HOST_PACKAGE = packageRoot(fileURLToPath(import.meta.url))

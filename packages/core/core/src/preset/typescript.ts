import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/

let registered: Promise<boolean> | undefined

/**
 * Imports a plugin file. Node cannot run TypeScript, so when it refuses a `.ts` file for its
 * extension, tsx is registered once (found beside the file, else beside dsh) and the import retried.
 * Loading tsx only then keeps its module hooks, which cost more than a whole boot, out of every
 * composition that has no TypeScript rows.
 */
export async function importPluginFile(path: string, installation: NodeJS.Require): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href
  try {
    return (await import(url)) as Record<string, unknown>
  } catch (error) {
    if (!TYPESCRIPT_FILE.test(path) || (error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error
    if (!(await registerTsx(path, installation))) {
      throw new Error(`${path} is TypeScript and no TypeScript loader is installed: install tsx where dsh or the plugin can find it (npm install tsx), or load the compiled .js file`, { cause: error })
    }
    // A new URL: node keeps the failed load of the first one.
    return (await import(`${url}?typescript`)) as Record<string, unknown>
  }
}

function registerTsx(path: string, installation: NodeJS.Require): Promise<boolean> {
  registered ??= (async () => {
    for (const resolver of [createRequire(join(dirname(path), 'plugin.js')), installation]) {
      let loader: string
      try {
        loader = resolver.resolve('tsx')
      } catch {
        continue
      }
      // tsx's main entry is what `node --import tsx` loads: importing it registers its hooks.
      await import(pathToFileURL(loader).href)
      return true
    }
    return false
  })()
  return registered
}

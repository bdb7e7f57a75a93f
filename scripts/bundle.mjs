// The published JavaScript of a workspace package: its tsc build (dist/) bundled by esbuild into
// bundle/, which publishConfig's exports and bin point at (the declarations stay in dist/).
// A `dsh` command loaded about 350 modules from the tsc layout, and Node's module loader was the
// largest part of its start-up; bundled, it loads a few dozen (bench/RESULTS.md, issue 27 item 5).
//
// What stays a separate package, so that a process has one copy of it: every bare import
// (cordis, the other dsh packages, the MCP SDK, undici…) is left to node_modules, with two
// exceptions. zod and yaml are bundled into dsh-core, which publishes them as `dsh-core/vendor/zod`
// and `dsh-core/vendor/yaml`; every other package's bundle imports them from there. Neither carries
// identity a plugin could trip on (zod keeps its registry on globalThis for several copies; yaml
// returns plain data), so a plugin importing `zod` itself still works beside them.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

const HOST = 'dsh-core'
const VENDORED = new Set(['zod', 'yaml'])
/**
 * zod's table of message locales (`z.locales`). The vendored copy keeps English, the one zod
 * configures itself with: the other 63 were half of its bundle (≈ 360 of 750 KB), and Node parses
 * all of it on every start (about a third of zod's import; bench/RESULTS.md). A plugin wanting
 * another locale imports `zod` itself and configures that copy.
 */
const ZOD_LOCALES = /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/

/**
 * esbuild's input and output for every file the published manifest points at under ./bundle/
 * (each built from the same path under ./dist/), plus the package's `dshBundle.entries`: files
 * loaded by URL rather than imported (a worker), written at bundle/<name>.js. With `fromSources`,
 * each input is the TypeScript source tsc compiles to that dist/ file (src/<path>.ts).
 */
function entryPoints(manifest, fromSources) {
  const targets = []
  const collect = (target) => {
    if (typeof target === 'string') targets.push(target)
    else if (target && typeof target === 'object') Object.values(target).forEach(collect)
  }
  collect(manifest.publishConfig?.exports)
  collect(manifest.publishConfig?.bin)
  const published = [...new Set(targets)]
    .filter((target) => target.startsWith('./bundle/') && target.endsWith('.js'))
    .map((target) => ({ in: target.replace('./bundle/', './dist/'), out: target.slice('./bundle/'.length, -'.js'.length) }))
  const extra = Object.entries(manifest.dshBundle?.entries ?? {}).map(([out, input]) => ({ in: input, out }))
  const entries = [...published, ...extra]
  return fromSources ? entries.map((entry) => ({ ...entry, in: entry.in.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts') })) : entries
}

/**
 * Bundles `packageDir`'s dist/ into bundle/ (replaced whole). Returns esbuild's result.
 * `fromSources` bundles src/ instead, with esbuild stripping the types (the test suite's children:
 * the same modules without a tsc emit; the type check is `pnpm typecheck`'s). Every package
 * compiles with `isolatedModules` and `verbatimModuleSyntax`, so esbuild's output is tsc's.
 */
export async function bundlePackage(packageDir, manifest, esbuildFrom, { fromSources = false } = {}) {
  const { build } = await import(createRequire(esbuildFrom).resolve('esbuild'))
  const entries = entryPoints(manifest, fromSources)
  const target = join(packageDir, 'bundle')
  if (!entries.length) {
    rmSync(target, { recursive: true, force: true })
    return undefined
  }
  const missing = entries.filter((entry) => !existsSync(join(packageDir, entry.in)))
  if (missing.length) throw new Error(`bundle entries not built: ${missing.map((entry) => entry.in).join(', ')}`)
  const isHost = manifest.name === HOST
  const root = manifest.dshBundle?.rootFirst ? entries.find((entry) => entry.out === 'index') : undefined
  if (manifest.dshBundle?.rootFirst && !root) throw new Error(`${manifest.name}: dshBundle.rootFirst needs a published ./bundle/index.js`)
  const bins = new Set(entryPoints({ publishConfig: { bin: manifest.publishConfig?.bin } }, fromSources).map((entry) => entry.in))
  const extra = new Set(Object.keys(manifest.dshBundle?.entries ?? {}))
  const withRoot = new Set(root ? entries.filter((entry) => entry !== root && !bins.has(entry.in) && !extra.has(entry.out) && !entry.out.startsWith('vendor/')).map((entry) => join(packageDir, entry.in)) : [])
  // Written beside and swapped in: processes may be running the old bundle (a second test run's
  // children), and a half-written one must never be seen.
  const outdir = join(packageDir, `.bundle-${process.pid}`)
  rmSync(outdir, { recursive: true, force: true })
  // `dshBundle.standalone`: entries built whole into their one file (see `standaloneEntries`).
  const standalone = standaloneEntries(manifest, entries)
  const options = {
    absWorkingDir: packageDir,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    // Chunks beside the entries at the top of bundle/: code that finds files by import.meta.url
    // (../presets/, ../package.json, a worker) sits one level below the package root, as in dist/.
    chunkNames: '[name]-[hash]',
    logLevel: 'warning',
    // yaml is CommonJS and requires Node's built-ins; inside an ES module bundle that needs a require.
    banner: isHost ? { js: REQUIRE_BANNER } : undefined,
    plugins: [
      {
        name: 'dsh-externals',
        setup(bundler) {
          if (root) {
            bundler.onResolve({ filter: /./ }, (args) => {
              if (args.kind === 'entry-point') {
                const path = join(packageDir, args.path)
                return withRoot.has(path) ? { path, namespace: WITH_ROOT } : undefined
              }
              // A module of the package imported on first use: its own code stays out of the root's chunk.
              if (args.kind === 'dynamic-import' && args.path.startsWith('.') && args.namespace === 'file') {
                const path = resolve(args.resolveDir, args.path)
                return existsSync(path) ? { path, namespace: WITH_ROOT } : undefined
              }
              return undefined
            })
            bundler.onLoad({ filter: /./, namespace: WITH_ROOT }, (args) => ({ contents: entryWithRoot(args.path, join(packageDir, root.in)), resolveDir: dirname(args.path), loader: 'js' }))
          }
          bundler.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.kind === 'entry-point') return undefined
            const name = args.path.split('/').slice(0, args.path.startsWith('@') ? 2 : 1).join('/')
            if (VENDORED.has(name)) {
              if (isHost) return undefined // bundled here
              if (args.path !== name) throw new Error(`${args.importer} imports ${args.path}; only the package root of ${name} is vendored by ${HOST}`)
              return { path: `${HOST}/vendor/${name}`, external: true }
            }
            // yaml's own requires of Node's built-ins ('process', 'buffer') inside dsh-core's bundle
            return { path: args.path, external: true }
          })
          if (isHost) {
            bundler.onLoad({ filter: ZOD_LOCALES }, (args) => ({ contents: "export { default as en } from './en.js'\n", resolveDir: dirname(args.path) }))
          }
        },
      },
    ],
  }
  const built = async () => {
    const result = await build({ ...options, entryPoints: entries.filter((entry) => !standalone.includes(entry)), splitting: true })
    if (standalone.length) await build({ ...options, entryPoints: standalone, splitting: false })
    return result
  }
  const result = await built().catch((error) => {
    rmSync(outdir, { recursive: true, force: true })
    throw error
  })
  asciiOnly(outdir)
  if (isHost) requireWhereUsed(outdir)
  const previous = join(packageDir, `.bundle-old-${process.pid}`)
  if (existsSync(target)) renameSync(target, previous)
  renameSync(outdir, target)
  rmSync(previous, { recursive: true, force: true })
  return result
}

/**
 * `dshBundle.standalone` (dsh-mcp's `user-overlay`): published entries, by their name under
 * bundle/, that are built alone, each one file with no chunk shared with the package's other
 * entries. For a small entry that a start loads without the package root (dsh-cli's start reads
 * dsh-mcp's user-overlay path only): split, it is two modules (the entry and the chunk it shares
 * with the root), each one more file for Node to resolve, read, compile and link. Only for code
 * with no module state: the root has its own copy.
 */
function standaloneEntries(manifest, entries) {
  const names = manifest.dshBundle?.standalone ?? []
  const unknown = names.filter((name) => !entries.some((entry) => entry.out === name))
  if (unknown.length) throw new Error(`${manifest.name}: dshBundle.standalone names no published entry: ${unknown.join(', ')}`)
  return entries.filter((entry) => names.includes(entry.out))
}

const WITH_ROOT = 'dsh-with-root'
const REQUIRE_BANNER = "import { createRequire as __dshBundleRequire } from 'node:module'\nconst require = __dshBundleRequire(import.meta.url)"

/**
 * `dshBundle.rootFirst` (dsh-core, dsh-cli): each published entry but the bin and the vendored
 * re-exports (`dsh-core/tools`, `dsh-core/fs`...), and each module the package imports on first use
 * (`await import('./serve.ts')`), is bundled as that module loaded after the package root. Then
 * all of them reach the root's whole static graph, and esbuild puts that graph in one chunk instead
 * of a chunk per combination of entries: the base preset loaded 26 files of dsh-core and 6 of
 * dsh-cli, each one more module for Node to resolve, read, compile and link (issue 27 item 5).
 * Nothing more runs in a dsh process, which loads both roots anyway; code only a lazily imported
 * module reaches stays out of the root's chunk. For packages whose every entry loads with the root.
 */
function entryWithRoot(entry, rootEntry) {
  const own = JSON.stringify(entry)
  const exportsDefault = /^export default\b|\bas default\b/m.test(readFileSync(entry, 'utf8'))
  return `import ${JSON.stringify(rootEntry)}\nexport * from ${own}\n${exportsDefault ? `export { default } from ${own}\n` : ''}`
}

/**
 * The host's banner gives each file a CommonJS `require` for yaml's requires of Node's built-ins;
 * only the file defining esbuild's `__require` shim uses it. Every other file would create one
 * (a CommonJS loader set-up each) for nothing.
 */
function requireWhereUsed(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue
    const file = join(entry.parentPath ?? entry.path, entry.name)
    const text = readFileSync(file, 'utf8')
    if (!text.startsWith(REQUIRE_BANNER)) continue
    const body = text.slice(REQUIRE_BANNER.length)
    if (!/\brequire\b/.test(body)) writeFileSync(file, body.replace(/^\n/, ''))
  }
}

/**
 * esbuild escapes non-ASCII characters in code (its default charset) but copies comments as written,
 * and one `—` or `…` in a kept comment makes Node read the whole file into a two-byte string, which
 * V8 then scans as such: the vendored zod chunk (400 KB) was one because of one dash. Escaped
 * (`\u2014`), a comment reads the same to anyone, and code keeps its meaning.
 */
function asciiOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue
    const file = join(entry.parentPath ?? entry.path, entry.name)
    const text = readFileSync(file, 'utf8')
    if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`))
  }
}

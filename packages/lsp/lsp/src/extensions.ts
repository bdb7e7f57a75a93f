/**
 * The extension that routes a path: the suffix from the basename's last dot, lowercased.
 * Only the last suffix counts (`foo.d.ts` → `.ts`); no dot or a leading dot (dotfile) → `''`.
 */
export function finalExtension(filePath: string): string {
  const base = baseName(filePath)
  const dot = base.lastIndexOf('.')
  return dot <= 0 ? '' : base.slice(dot).toLowerCase()
}

const EXTENSION_KEY = /^\.[^./\\]+$/

/** `TS` and `.ts` both become `.ts`; undefined when the key can never match a final extension. */
export function normalizeExtensionKey(key: string): string | undefined {
  const lowered = key.toLowerCase()
  const normalized = lowered.startsWith('.') ? lowered : `.${lowered}`
  return EXTENSION_KEY.test(normalized) ? normalized : undefined
}

/** The last segment of a path, with either separator. */
function baseName(filePath: string): string {
  return filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1)
}

const FILE_NAME = /^[^/\\*]+$/

/**
 * A file-name route key, lowercased: an exact name (`Dockerfile`, `.bashrc`), or a name followed by
 * `.*` (`Dockerfile.*`: that name, a dot and anything after it). Undefined for anything else (a
 * path, another wildcard, `.` or `..`).
 */
export function normalizeFilenameKey(key: string): string | undefined {
  const lowered = key.toLowerCase()
  const name = lowered.endsWith('.*') ? lowered.slice(0, -2) : lowered
  return FILE_NAME.test(name) && name !== '.' && name !== '..' ? lowered : undefined
}

/**
 * The entry of `routes` (keyed by `normalizeFilenameKey`) for the file's name: the name itself,
 * else the `name.*` pattern of the longest part before a dot (`Dockerfile.prod.arm64` tries
 * `dockerfile.prod.*`, then `dockerfile.*`). Case-insensitive, like extensions.
 */
export function routeByFilename<T>(routes: ReadonlyMap<string, T>, filePath: string): T | undefined {
  const base = baseName(filePath).toLowerCase()
  const exact = routes.get(base)
  if (exact !== undefined) return exact
  for (let dot = base.lastIndexOf('.'); dot > 0; dot = base.lastIndexOf('.', dot - 1)) {
    const pattern = routes.get(`${base.slice(0, dot)}.*`)
    if (pattern !== undefined) return pattern
  }
  return undefined
}

/**
 * The extension that routes a path: the suffix from the basename's last dot, lowercased.
 * Only the last suffix counts (`foo.d.ts` → `.ts`); no dot or a leading dot (dotfile) → `''`.
 */
export function finalExtension(filePath: string): string {
  const base = filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1)
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

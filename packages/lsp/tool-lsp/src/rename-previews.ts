import { createHash } from 'node:crypto'

/**
 * The previews shown lately, by what they renamed, each with a fingerprint of every file's text
 * before and after. Applying a rename that was previewed refuses when its fingerprint differs: a
 * file changed since the model saw the preview, so what it approved is not what would be written.
 * Bounded: the oldest preview is forgotten first (applying it then checks only the files as they are).
 */
export class RenamePreviews {
  private readonly shown = new Map<string, string>()

  constructor(private readonly capacity: number) {}

  remember(key: string, fingerprint: string): void {
    if (this.capacity === 0) return
    this.shown.delete(key)
    this.shown.set(key, fingerprint)
    for (const oldest of this.shown.keys()) {
      if (this.shown.size <= this.capacity) break
      this.shown.delete(oldest)
    }
  }

  /** The fingerprint last shown for `key`, forgotten as it is taken. */
  take(key: string): string | undefined {
    const fingerprint = this.shown.get(key)
    this.shown.delete(key)
    return fingerprint
  }
}

/**
 * One digest of the whole edit: each file's canonical path, text before and text after, in path
 * order (servers list files in no fixed order: gopls's come from a Go map).
 */
export function fingerprintOf(files: readonly { readonly path: string; readonly before: string; readonly after: string }[]): string {
  const hash = createHash('sha256')
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) hash.update(file.path).update('\0').update(file.before).update('\0').update(file.after).update('\0')
  return hash.digest('hex')
}

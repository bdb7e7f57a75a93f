import { hash } from 'node:crypto'

/** What the server holds of a document we keep open: the version it has and a digest of its text. */
interface KeptDocument {
  version: number
  digest: string
  /**
   * The read its text came from (`ContainedText`): a later request handing over that same object
   * (a reused read of the unchanged file) has that text, so it is not hashed again. Weak: the
   * read's text is not held here.
   */
  read?: WeakRef<object> | undefined
}

/**
 * The documents a server keeps open between requests, least recently used first. Only the digest
 * of each text is held (a 4 MB file costs 20 bytes here), enough to tell whether the text read for
 * the next request differs from what the server has.
 */
export class KeptDocuments {
  private readonly documents = new Map<string, KeptDocument>()

  constructor(private readonly capacity: number) {}

  has(uri: string): boolean {
    return this.documents.has(uri)
  }

  /** The document, marked most recently used. */
  use(uri: string): KeptDocument | undefined {
    const document = this.documents.get(uri)
    if (document) {
      this.documents.delete(uri)
      this.documents.set(uri, document)
    }
    return document
  }

  /** Keeps a document just opened (its text from `read`, when given); returns the URIs that no longer fit (least recently used), to be closed. */
  add(uri: string, version: number, text: string, read?: object): string[] {
    this.documents.delete(uri)
    this.documents.set(uri, { version, digest: digestOf(text), read: read && new WeakRef(read) })
    const evicted: string[] = []
    for (const oldest of this.documents.keys()) {
      if (this.documents.size <= this.capacity) break
      this.documents.delete(oldest)
      evicted.push(oldest)
    }
    return evicted
  }

  delete(uri: string): boolean {
    return this.documents.delete(uri)
  }
}

/**
 * The text's SHA-1, base64. Taken of every text read after a change to a kept document: one call
 * of `crypto.hash`, not a `Hash` object made, fed and finished (about a quarter of the CPU for a
 * source file); the same digest.
 */
export function digestOf(text: string): string {
  return hash('sha1', text, 'base64')
}

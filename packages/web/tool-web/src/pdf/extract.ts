import { WebError } from 'dsh-web'

// PDF → text with pdf.js (Mozilla's reader; its legacy build is the one for Node). Only the text
// layer is read: no rendering, no fonts loaded (from the network or the system), no script or
// `eval` (isEvalSupported: false; pdf.js never runs a document's JavaScript without a viewer
// that asks it to), no range or stream requests (the bytes are all here). It runs in a converter
// process (convert/pool.ts): the call's budget kills it, and the process's memory limit bounds it;
// with `conversionWorkers: 0` it runs on the event loop.

export interface PdfText {
  /** `[Page 1 of 3]` before each page's text; pages after the cap are not read. */
  readonly text: string
  readonly pages: number
}

/** The marker before each page's text. */
export function pageMarker(page: number, pages: number): string {
  return `[Page ${page} of ${pages}]`
}

/**
 * The text of every page, each after its marker, until `maxChars` is passed (the rendering cuts
 * there and says so). Coded failures: `WEB_PDF_ENCRYPTED` (a password is needed),
 * `WEB_PDF_INVALID` (not a PDF pdf.js can read), `WEB_PDF_NO_TEXT` (pages without a text layer:
 * scanned images).
 */
export async function pdfToText(bytes: Uint8Array, maxChars: number): Promise<PdfText> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs')
  const task = pdfjs.getDocument({
    // pdf.js refuses a Node Buffer ("provide binary data as `Uint8Array`"): the http provider's
    // body is one on the event loop; a converter process may receive one too (v8 deserialization).
    data: Buffer.isBuffer(bytes) ? new Uint8Array(bytes) : bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    stopAtErrors: false,
    verbosity: 0,
  })
  let document: Awaited<typeof task.promise>
  try {
    document = await task.promise
  } catch (error) {
    await task.destroy()
    throw openFailure(error)
  }
  try {
    const pages = document.numPages
    const parts: string[] = []
    let length = 0
    let withText = 0
    for (let number = 1; number <= pages && length <= maxChars; number++) {
      const page = await document.getPage(number)
      const content = await page.getTextContent()
      let text = ''
      for (const item of content.items) {
        if (!('str' in item)) continue
        text += item.str
        if (item.hasEOL) text += '\n'
      }
      page.cleanup()
      text = text.replace(/[ \t]+\n/g, '\n').trim()
      if (text) withText++
      const part = `${pageMarker(number, pages)}\n\n${text}`
      parts.push(part)
      length += part.length + 2
    }
    if (!withText && parts.length === pages) {
      throw new WebError(`the PDF has ${pages} ${pages === 1 ? 'page' : 'pages'} and no text layer (scanned images?); its text cannot be extracted without OCR`, 'WEB_PDF_NO_TEXT')
    }
    return { text: parts.join('\n\n'), pages }
  } finally {
    await document.destroy()
  }
}

function openFailure(error: unknown): WebError {
  const name = (error as { name?: unknown } | null)?.name
  if (name === 'PasswordException') return new WebError('the PDF is encrypted with a password; its text cannot be read', 'WEB_PDF_ENCRYPTED', { cause: error })
  const message = error instanceof Error ? error.message : String(error)
  return new WebError(`the PDF could not be read: ${message}`, 'WEB_PDF_INVALID', { cause: error })
}

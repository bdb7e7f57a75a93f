/**
 * An XHTML body (served as `application/xhtml+xml`) with its CDATA sections as the text they are.
 * A browser parses such a body as XML, where `<![CDATA[x < y]]>` is the text `x < y`; the HTML
 * parser that reads our pages (dsh-tool-web's) takes it for a bogus comment and drops it, so the
 * model lost that text. Each section becomes its text, escaped (`&`, `<`, `>`), which an HTML parser
 * reads back as the same text. An unterminated section (a body cut at the byte cap) is text to the
 * end. One pass: `indexOf` from where the last section ended.
 */
export function cdataAsText(xhtml: string): string {
  let at = xhtml.indexOf(OPEN)
  if (at < 0) return xhtml
  const parts: string[] = []
  let from = 0
  while (at >= 0) {
    const close = xhtml.indexOf(CLOSE, at + OPEN.length)
    const end = close < 0 ? xhtml.length : close
    parts.push(xhtml.slice(from, at), escape(xhtml.slice(at + OPEN.length, end)))
    from = close < 0 ? xhtml.length : close + CLOSE.length
    at = xhtml.indexOf(OPEN, from)
  }
  parts.push(xhtml.slice(from))
  return parts.join('')
}

const OPEN = '<![CDATA['
const CLOSE = ']]>'

/** `&` first, so the entities the next two add are not escaped again. */
function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

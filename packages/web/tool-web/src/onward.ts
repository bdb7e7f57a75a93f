/**
 * Where a page without text sends its reader: a `<meta http-equiv="refresh" content="0; url=…">`
 * (a static host's redirect) or the documents of its `<frame>`s and `<iframe>`s. A browser follows
 * them; web_fetch does not, and said only "markup only", so the model never learnt the URL that
 * holds the content. Found by scanning the tags one by one (indexOf to each `<meta`/`<frame`/
 * `<iframe`, then to its `>`), so a page of unclosed tags is read once: linear.
 */
export function onwardUrls(html: string, base: string): { readonly refresh?: string; readonly frames: readonly string[] } {
  const lower = html.toLowerCase()
  let refresh: string | undefined
  const frames: string[] = []
  let at = lower.indexOf('<')
  while (at >= 0 && frames.length < MAX_FRAMES) {
    const name = tagName(lower, at + 1)
    if (name === 'meta' || name === 'frame' || name === 'iframe') {
      const end = lower.indexOf('>', at)
      const tag = html.slice(at, end < 0 ? html.length : end)
      if (name === 'meta') refresh ??= refreshTarget(tag, base)
      else {
        const src = webUrl(attribute(tag, 'src'), base)
        if (src && !frames.includes(src)) frames.push(src)
      }
      if (end < 0) break
      at = lower.indexOf('<', end)
    } else at = lower.indexOf('<', at + 1)
  }
  return { ...(refresh ? { refresh } : {}), frames }
}

const MAX_FRAMES = 5

function tagName(lower: string, from: number): string {
  let end = from
  while (end < lower.length && end - from < 7 && lower.charCodeAt(end) >= 0x61 && lower.charCodeAt(end) <= 0x7a) end++
  const next = lower[end]
  return next === undefined || next === '>' || next === '/' || /\s/.test(next) ? lower.slice(from, end) : ''
}

/** `content="0; url=/next"` of a refresh meta, resolved; undefined for a plain reload or another meta. */
function refreshTarget(tag: string, base: string): string | undefined {
  if (attribute(tag, 'http-equiv')?.trim().toLowerCase() !== 'refresh') return undefined
  const content = attribute(tag, 'content') ?? ''
  const match = /^\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?(.*)$/i.exec(content)
  const target = match?.[1]?.trim().replace(/^(['"])(.*)\1$/, '$2')
  return target ? webUrl(target, base) : undefined
}

/** One attribute's value in a tag (quoted or not), undefined when absent. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(tag)
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined
}

/** An http(s) URL resolved against the page's, WHATWG-serialised; undefined for anything else (javascript:, about:blank). */
function webUrl(value: string | undefined, base: string): string | undefined {
  if (!value?.trim()) return undefined
  const url = URL.parse(value.trim(), base)
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined
}

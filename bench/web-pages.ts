import { renderFetch } from 'dsh-tool-web'
import { htmlToMarkdown } from 'dsh-tool-web/convert'
import { npmPages, overlap, referenceText, rustPages, type CorpusPage } from '../packages/web/tool-web/tests/fixtures/pages/corpus.ts'
import { ms } from './stats.ts'

// Issue 31 item 1: what the model reads of long real pages. For each page, the article text its
// author marked up (its <main>, #main-content or #_content) is the reference; recall is the share
// of its words the model's text holds, precision the share of the text's words that are the
// article's. "before" converts the first 100 000 characters of the HTML (web-fetch-http's
// maxBodyChars cut every body before issue 31); "now" converts the whole page and caps the text at
// fetchMaxOutputChars (200 000), as web_fetch does.

const OUTPUT_CAP = 200_000
const OLD_SOURCE_CAP = 100_000

interface Row {
  readonly name: string
  readonly htmlChars: number
  readonly before: number
  readonly recall: number
  readonly precision: number
  readonly markdownChars: number
  readonly ms: number
}

function modelText(page: CorpusPage, html: string, mainContent: boolean): { text: string; markdown: string; ms: number } {
  const started = process.hrtime.bigint()
  const markdown = htmlToMarkdown(html, { url: page.url, mainContent })
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  const value = { url: page.url, statusCode: 200, body: { kind: 'html' as const, content: html }, truncated: false, markdown }
  return { text: renderFetch(value, OUTPUT_CAP).text, markdown, ms: elapsed }
}

function measure(page: CorpusPage, mainContent: boolean): Row {
  const reference = referenceText(page)
  const before = modelText(page, page.html.slice(0, OLD_SOURCE_CAP), mainContent)
  const now = modelText(page, page.html, mainContent)
  const figures = overlap(reference, now.text)
  return { name: page.name, htmlChars: page.html.length, before: overlap(reference, before.text).recall, recall: figures.recall, precision: figures.precision, markdownChars: now.markdown.length, ms: now.ms }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const f = (value: number) => value.toFixed(3)

export function benchLongPages(): string[] {
  const lines = [
    `long real pages: article-text recall and precision of what web_fetch gives the model (text capped at ${OUTPUT_CAP}); "before" converted only the first ${OLD_SOURCE_CAP} characters of the HTML`,
  ]
  const rust = rustPages()
  const npm = npmPages()
  for (const mainContent of [false, true]) {
    lines.push(`  mainContent ${mainContent ? 'on' : 'off'}`)
    lines.push(`    ${'page'.padEnd(42)} ${'HTML'.padStart(9)} ${'recall before'.padStart(13)} ${'recall'.padStart(7)} ${'precision'.padStart(9)} ${'Markdown'.padStart(9)} ${'convert'.padStart(10)}`)
    const rows = [...rust, ...npm].map((page) => measure(page, mainContent))
    for (const row of rows.slice(0, rust.length)) {
      const cut = row.markdownChars > OUTPUT_CAP ? '  (cut by fetchMaxOutputChars: the note says so)' : ''
      lines.push(`    ${row.name.padEnd(42)} ${String(row.htmlChars).padStart(9)} ${f(row.before).padStart(13)} ${f(row.recall).padStart(7)} ${f(row.precision).padStart(9)} ${String(row.markdownChars).padStart(9)} ${ms(row.ms).padStart(10)}${cut}`)
    }
    const npmRows = rows.slice(rust.length)
    lines.push(
      `    ${`npm's ${npmRows.length} doc pages`.padEnd(42)} ${'median'.padStart(9)} ${f(median(npmRows.map((row) => row.before))).padStart(13)} ${f(median(npmRows.map((row) => row.recall))).padStart(7)} ${f(median(npmRows.map((row) => row.precision))).padStart(9)}   lowest recall ${f(Math.min(...npmRows.map((row) => row.recall)))}`,
    )
    const fitting = rows.filter((row) => row.markdownChars <= OUTPUT_CAP)
    const underCap = rows.filter((row) => row.markdownChars > OUTPUT_CAP && row.recall < 0.9)
    const low = fitting.filter((row) => row.recall < 0.9)
    lines.push(
      `    all ${rows.length} pages: median precision ${f(median(rows.map((row) => row.precision)))}; pages whose Markdown fits the cap and recall is under 0.9 (what extraction dropped, not a cap): ${low.length ? low.map((row) => `${row.name} ${f(row.recall)}`).join(', ') : 'none'}; cut by the output cap (recall under 0.9, with the note): ${underCap.map((row) => row.name).join(', ') || 'none'}`,
    )
  }
  return lines
}

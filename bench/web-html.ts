import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { htmlToMarkdown } from 'dsh-tool-web/convert'
import { ms, ratio } from './stats.ts'
import { benchLongPages } from './web-pages.ts'

// HTML → Markdown on its own (issue 19 items 4 and 10).
// 1. A pathological corpus at the default source cap (100 000 characters, web-fetch-http's
//    maxBodyChars): ours (linkedom, cleaning, bounding, turndown) against bare turndown on the same
//    string, the converter as it was used before. The figure that matters is our worst case.
// 2. Main-content extraction on real documentation pages shipped in an npm package (npm's own
//    HTML docs, a devDependency of dsh-tool-web): characters kept against the full conversion, and
//    whether every code block and table of the page's main text survives.

const SOURCE_CAP = 100_000
const fromToolWeb = createRequire(createRequire(import.meta.url).resolve('dsh-tool-web/package.json'))

/** turndown as dsh-tool-web depends on it (the root package does not), configured as the tool configures it. */
function bareTurndown(): { turndown(html: string): string } {
  const Turndown = fromToolWeb('turndown') as new (options: Record<string, string>) => { turndown(html: string): string }
  return new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
}

/** Pages built to hit a converter's worst paths, each cut to the source cap. */
export function pathologicalCorpus(size = SOURCE_CAP): Record<string, string> {
  const fill = (open: string, unit: string, close = '') => (open + unit.repeat(Math.ceil(size / unit.length))).slice(0, size - close.length) + close
  return {
    '&nbsp; run': fill('<p>x', '&nbsp;', 'y</p>'),
    '&nbsp; and spaces in a span': fill('<span>x', '&nbsp; ', 'y</span>'),
    '<pre> of spaces': fill('<pre>x', ' ', 'y</pre>'),
    '<pre><code> of blank lines': fill('<pre><code>x', ' \n', 'y</code></pre>'),
    '25 000 <br>': fill('<p>', '<br>', '</p>'),
    'text and <br> lines': fill('<p>', 'a<br>', '</p>'),
    'empty <b> siblings': fill('<p>', '<b> </b>', '</p>'),
    '<b> siblings': fill('<p>', '<b>x</b>', '</p>'),
    'one row of 10 000 cells': fill('<table><tr>', '<td>a</td>', '</tr></table>'),
    '5 000 rows': fill('<table>', '<tr><td>a</td></tr>', '</table>'),
    '10 000 list items': fill('<ul>', '<li>x</li>', '</ul>'),
    '12 500 paragraphs': fill('', '<p>x</p>'),
    '500 nested spans over text': fill(`${'<span>'.repeat(500)}x`, ' y'),
    '500 nested divs over text': fill(`${'<div>'.repeat(500)}x`, ' y'),
    '12 500 links': fill('<p>', '<a href="/x">y</a> ', '</p>'),
    'inline code with spaces': fill('<code>', ' a', '</code>'),
  }
}

function cpu(work: () => unknown): number {
  const start = process.hrtime.bigint()
  work()
  return Number(process.hrtime.bigint() - start) / 1e6
}

export function benchPathological(): string[] {
  const corpus = pathologicalCorpus()
  const bare = bareTurndown()
  const lines = [`pathological HTML at the source cap (${SOURCE_CAP} characters): ours (htmlToMarkdown) against bare turndown on the same string; one warm-up each`]
  lines.push(`  ${'page'.padEnd(30)} ${'ours'.padStart(11)} ${'bare turndown'.padStart(14)} ${'ratio'.padStart(8)}`)
  let worst = { name: '', ours: 0, bare: 0 }
  for (const [name, html] of Object.entries(corpus)) {
    htmlToMarkdown(html.slice(0, 2000))
    const ours = cpu(() => htmlToMarkdown(html, { url: 'https://bench.test/page' }))
    const theirs = cpu(() => bare.turndown(html))
    if (ours > worst.ours) worst = { name, ours, bare: theirs }
    lines.push(`  ${name.padEnd(30)} ${ms(ours).padStart(11)} ${ms(theirs).padStart(14)} ${ratio(ours, theirs).padStart(8)}`)
  }
  lines.push(`  worst case, ours: ${worst.name} in ${ms(worst.ours)} (bare turndown on it: ${ms(worst.bare)}); worst bare turndown: ${ms(Math.max(...lines.slice(2).map((line) => Number(/ms\s+([\d.]+) ms/.exec(line)?.[1] ?? 0))))}`)
  return lines
}

interface Page {
  readonly file: string
  readonly html: string
}

/** npm's HTML documentation, as the npm package ships it. */
export function documentationCorpus(): Page[] {
  const root = join(dirname(fromToolWeb.resolve('npm/package.json')), 'docs/output')
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.html')).sort()
  return files.map((file) => ({ file: relative(root, join(root, file)), html: readFileSync(join(root, file), 'utf8') }))
}

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length

/**
 * What the page's own main-text container holds (npm's docs keep it in `<div id="_content">`):
 * its code blocks and tables are the ones the extraction must keep.
 */
function expected(html: string): { code: number; tables: number } {
  const start = html.indexOf('<div id="_content">')
  const main = start < 0 ? html : html.slice(start)
  return { code: count(main, /<pre[\s>]/g), tables: count(main, /<table[\s>]/g) }
}

export function benchMainContent(): string[] {
  const pages = documentationCorpus()
  let fullChars = 0
  let mainChars = 0
  let codeKept = 0
  let codeExpected = 0
  let tablesKept = 0
  let tablesExpected = 0
  let pagesWhole = 0
  let mainMs = 0
  let fullMs = 0
  const losses: string[] = []
  for (const { file, html } of pages) {
    const url = `https://docs.npmjs.com/cli/${file.replace(/\.html$/, '')}`
    let full = ''
    let main = ''
    fullMs += cpu(() => (full = htmlToMarkdown(html, { url })))
    mainMs += cpu(() => (main = htmlToMarkdown(html, { url, mainContent: true })))
    fullChars += full.length
    mainChars += main.length
    const want = expected(html)
    // A fence or a table inside a list item is indented.
    const got = { code: count(main, /^[ \t]*```/gm) / 2, tables: count(main, /^[ \t]*\|(?: :?-{3,}:? \|)+$/gm) }
    codeExpected += want.code
    tablesExpected += want.tables
    codeKept += Math.min(got.code, want.code)
    tablesKept += Math.min(got.tables, want.tables)
    if (got.code >= want.code && got.tables >= want.tables) pagesWhole++
    else losses.push(`${file} (code ${got.code}/${want.code}, tables ${got.tables}/${want.tables})`)
  }
  return [
    `main-content extraction (Readability over linkedom) on ${pages.length} HTML documentation pages shipped in the npm package (npm's docs/output)`,
    `  characters: main content ${mainChars} against full conversion ${fullChars} (${ratio(mainChars, fullChars)}, ${(100 - (100 * mainChars) / fullChars).toFixed(1)} % dropped: banner, table of contents, footer)`,
    `  code blocks of the main text kept: ${codeKept} of ${codeExpected}; tables kept: ${tablesKept} of ${tablesExpected}; pages with every code block and table: ${pagesWhole} of ${pages.length}`,
    ...(losses.length ? [`  pages that lost something: ${losses.join('; ')}`] : []),
    `  time for the corpus: main content ${ms(mainMs)}, full conversion ${ms(fullMs)} (${ratio(mainMs, fullMs)})`,
  ]
}

export async function benchWebHtml(): Promise<string[]> {
  return [...benchPathological(), ...benchMainContent(), ...benchLongPages()]
}

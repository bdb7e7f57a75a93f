import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { htmlToMarkdown } from '../src/convert.ts'
import { boot, fetchProvider, page, textOf, type Harness } from './harness.ts'

// Issue 19 item 10: main-content extraction (Readability over linkedom), on a real documentation
// page as the npm package ships it (a devDependency; bench/web-html.ts measures all 93 of them).

let host: Harness | undefined
afterEach(async () => {
  await host?.stop()
  host = undefined
})

const docs = join(dirname(createRequire(import.meta.url).resolve('npm/package.json')), 'docs/output')
const npmLs = readFileSync(join(docs, 'commands/npm-ls.html'), 'utf8')
const URL_OF_PAGE = 'https://docs.npmjs.com/cli/commands/npm-ls'
const fences = (markdown: string) => (markdown.match(/^[ \t]*```/gm) ?? []).length / 2

describe('main content', () => {
  it('drops the banner and the table of contents, keeps every code block of the text', () => {
    const full = htmlToMarkdown(npmLs, { url: URL_OF_PAGE })
    const main = htmlToMarkdown(npmLs, { url: URL_OF_PAGE, mainContent: true })
    expect(full).toContain('npm command-line interface')
    expect(full).toContain('## Table of contents')
    expect(main).not.toContain('npm command-line interface')
    expect(main).not.toContain('Table of contents')
    expect(main).toContain('### Synopsis')
    expect(main).toContain('[`npm explain`](https://docs.npmjs.com/cli/commands/npm-explain.html)')
    expect(fences(main)).toBe(fences(full))
    expect(main.length).toBeLessThan(full.length)
  })

  it('through web_fetch: the mainContent argument, else the fetchMainContent setting', async () => {
    host = await boot({ fetchMainContent: true })
    host.app.web.registerFetchProvider(fetchProvider(page(npmLs, 'html', { url: URL_OF_PAGE })).provider)
    expect(textOf(await host.fetch({ url: URL_OF_PAGE }))).not.toContain('Table of contents')
    expect(textOf(await host.fetch({ url: URL_OF_PAGE, mainContent: false }))).toContain('Table of contents')
  })

  it('a page Readability finds no article in comes back whole', () => {
    expect(htmlToMarkdown('<p>just a line</p>', { mainContent: true })).toBe('just a line')
  })
})

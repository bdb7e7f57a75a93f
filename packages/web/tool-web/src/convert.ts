// `dsh-tool-web/convert`: the HTML → Markdown converter on its own, for hosts that convert pages
// themselves (a replayed `web_fetch` value without its Markdown, a page from elsewhere). Apart from
// the package root, which lists and registers the tools without it: the converter is loaded by the
// first page converted (issue 27 item 5).
export { htmlToMarkdown, type ConversionOptions } from './markdown.ts'
export { flattenDeep, nestsTooDeep, MAX_HTML_DEPTH } from './depth.ts'
export { withMarkdown } from './convert/run-job.ts'

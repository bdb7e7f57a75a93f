// The loopback server bench/web.ts measures against, in its own process so its CPU and memory do
// not count as ours. Routes: /small.txt, /small.html, /bytes/<n> (n bytes of text, streamed),
// /worst/<n> (an HTML page of n `<p>x</p>` paragraphs: a worst case for the converter).
import { createServer } from 'node:http'

const SMALL_TEXT = 'A small page of plain text, the kind of answer a status endpoint gives.\n'.repeat(12)
const SMALL_HTML = `<!doctype html><html><head><title>Small</title></head><body><h1>Small page</h1>${'<p>A paragraph with a <a href="https://example.com/">link</a> and <b>bold</b> text.</p>'.repeat(12)}</body></html>`
const CHUNK = Buffer.alloc(65_536, 'a')

const server = createServer((request, response) => {
  const url = request.url ?? '/'
  if (url === '/small.txt') return void response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(SMALL_TEXT)
  if (url === '/small.html') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SMALL_HTML)
  const worst = /^\/worst\/(\d+)$/.exec(url)
  if (worst) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>${'<p>x</p>'.repeat(Number(worst[1]))}</body></html>`)
  const match = /^\/bytes\/(\d+)$/.exec(url)
  if (!match) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('no such route')
  const total = Number(match[1])
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) })
  let sent = 0
  const pump = () => {
    while (sent < total && !response.destroyed) {
      const piece = total - sent >= CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, total - sent)
      sent += piece.byteLength
      if (!response.write(piece)) return void response.once('drain', pump)
    }
    if (!response.destroyed) response.end()
  }
  pump()
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('disconnect', () => process.exit(0))

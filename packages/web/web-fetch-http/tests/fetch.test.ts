import { pbkdf2 } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { Lifetime } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { bodyText, closeAll, closeProviders, failure, LOOPBACK_ALLOWED, provider, serve, type Handler } from './fixtures/servers.ts'

// The fetch transport (reference/web.md §8 F01–F37, DESIGN.md W2) against real HTTP servers on
// loopback, with the loopback opt-in; the guard's own tests run with the default policy.

afterEach(async () => {
  await closeProviders()
  await closeAll()
})

function respond(status: number, headers: Record<string, string>, body: string | Buffer = ''): Handler {
  return (_request, response) => {
    response.writeHead(status, headers)
    response.end(body)
  }
}

async function fetchFrom(handler: Handler, config: Record<string, unknown> = {}, path = '/') {
  const server = await serve(handler)
  const result = await provider({ ...LOOPBACK_ALLOWED, ...config }).fetch({ url: `${server.origin}${path}` })
  return { server, result }
}

async function failFrom(handler: Handler, config: Record<string, unknown> = {}, path = '/') {
  const server = await serve(handler)
  const error = await failure(provider({ ...LOOPBACK_ALLOWED, ...config }).fetch({ url: `${server.origin}${path}` }))
  return { server, error }
}

/** Streams `total` bytes of `a` in 64 KiB chunks, honouring backpressure; reports what it wrote. */
function huge(total: number, written: { bytes: number; closed: boolean }): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(65_536, 'a')
    response.on('close', () => (written.closed = true))
    const pump = () => {
      while (written.bytes < total && !response.destroyed) {
        written.bytes += chunk.byteLength
        if (!response.write(chunk)) return void response.once('drain', pump)
      }
      if (!response.destroyed) response.end()
    }
    pump()
  }
}

describe('URLs', () => {
  it('F01, F27: scheme, parse, credentials and length are checked before any network access', async () => {
    const fetcher = provider(LOOPBACK_ALLOWED)
    expect((await failure(fetcher.fetch({ url: 'ftp://example.com/x' }))).code).toBe('WEB_INVALID_URL')
    expect((await failure(fetcher.fetch({ url: 'not a url' }))).code).toBe('WEB_INVALID_URL')
    expect((await failure(fetcher.fetch({ url: 'https://user:pass@example.com/' }))).code).toBe('WEB_BLOCKED_URL')
    expect((await failure(fetcher.fetch({ url: `https://example.com/${'a'.repeat(3000)}` }))).message).toBe('URL exceeds the maximum length of 2048')
    expect((await failure(fetcher.fetch({ url: 'file:///etc/passwd' }))).code).toBe('WEB_INVALID_URL')
  })

  it('F36: the result URL is WHATWG-serialised (a bare origin gains a slash)', async () => {
    const server = await serve(respond(200, { 'content-type': 'text/plain' }, 'x'))
    expect((await provider(LOOPBACK_ALLOWED).fetch({ url: server.origin })).url).toBe(`${server.origin}/`)
  })
})

describe('responses', () => {
  it('F06, F07: text and HTML bodies come back verbatim with their kind; available() is true', async () => {
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'hello world'))).result).toMatchObject({ statusCode: 200, body: { kind: 'text', content: 'hello world' }, truncated: false })
    expect((await fetchFrom(respond(200, { 'content-type': 'text/html; charset=utf-8' }, '<h1>hi</h1>'))).result.body).toEqual({ kind: 'html', content: '<h1>hi</h1>' })
    expect((await fetchFrom(respond(200, { 'content-type': 'application/xhtml+xml' }, '<p/>'))).result.body.kind).toBe('html')
    expect((await fetchFrom(respond(200, { 'content-type': 'application/ld+json' }, '{}'))).result.body.kind).toBe('text')
    expect(provider().available()).toBe(true)
  })

  it('F08, F35: one GET with user-agent, accept and accept-encoding, and no cookie or authorization', async () => {
    const { server } = await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'x'), { userAgent: 'test-agent/1' })
    const { headers } = server.requests[0]!
    expect(headers['user-agent']).toBe('test-agent/1')
    expect(headers.accept).toBe('text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.8,application/pdf;q=0.8')
    expect(headers['accept-encoding']).toBe('gzip, deflate, br')
    expect(headers.cookie).toBeUndefined()
    expect(headers.authorization).toBeUndefined()
  })

  it('F09: 404 and 500 pages are results, not errors', async () => {
    expect((await fetchFrom(respond(404, { 'content-type': 'text/plain' }, 'missing'))).result).toMatchObject({ statusCode: 404, body: { content: 'missing' } })
    expect((await fetchFrom(respond(500, { 'content-type': 'text/html' }, '<p>oops</p>'))).result).toMatchObject({ statusCode: 500, body: { kind: 'html', content: '<p>oops</p>' } })
  })

  it('F14: binary types are WEB_UNSUPPORTED_CONTENT_TYPE', async () => {
    expect((await failFrom(respond(200, { 'content-type': 'image/png' }, Buffer.from([0x89, 0x50, 0x4e, 0x47])))).error.code).toBe('WEB_UNSUPPORTED_CONTENT_TYPE')
    expect((await failFrom(respond(200, {}, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])))).error.message).toContain('not text')
  })

  it('binary bytes under a text or HTML Content-Type are WEB_UNSUPPORTED_CONTENT_TYPE, not a page of mojibake; UTF-16 text and an ESC are text', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR')])
    for (const type of ['text/html', 'text/plain; charset=utf-8', 'application/json']) {
      const { error } = await failFrom(respond(200, { 'content-type': type }, png))
      expect([error.code, error.message], type).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', `the body is not text, though its Content-Type says "${type}" (binary bytes in its first 1024)`])
    }
    const wide = await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-16le' }, Buffer.from('hi there', 'utf16le')))
    expect(wide.result.body).toEqual({ kind: 'text', content: 'hi there' })
    const bom = await fetchFrom(respond(200, { 'content-type': 'text/html' }, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>x</p>', 'utf16le')])))
    expect(bom.result.body).toEqual({ kind: 'html', content: '<p>x</p>' })
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'colour \x1b[1mbold\x1b[0m'))).result.body).toEqual({ kind: 'text', content: 'colour \x1b[1mbold\x1b[0m' })
    // Under a UTF-16 label a PNG or random bytes read as a page of CJK and Hangul: decoded, they hold
    // NULs, lone surrogate halves and private-use characters, which UTF-16 text does not.
    let seed = 5
    const noise = (length: number) => Buffer.from(new Uint8Array(length).map(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >> 16) % 256)))
    for (const [name, bytes] of [['png', png], ['noise 40', noise(40)], ['noise 2048', noise(2048)]] as const) {
      for (const type of ['text/plain; charset=utf-16le', 'text/html; charset=utf-16be']) {
        const { error } = await failFrom(respond(200, { 'content-type': type }, bytes))
        expect([error.code, error.message], `${name} ${type}`).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', `the body is not text, though its Content-Type says "${type}" (binary bytes in its first 1024)`])
      }
    }
    const cjk = '日本語のテキストです。한국어 텍스트. Ελληνικά, русский текст 😀\n'.repeat(40)
    const swapped = Buffer.from(cjk, 'utf16le').swap16()
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-16be' }, swapped))).result.body).toEqual({ kind: 'text', content: cjk })
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-16le' }, Buffer.from(cjk, 'utf16le')))).result.body).toEqual({ kind: 'text', content: cjk })
  })

  it('a declared text body with a few control bytes in its first 1024 (a BEL, backspaces: a log, a terminal capture) is text; one with a NUL or many binary bytes (a PNG, a gzip, an ELF) is not', async () => {
    const log = `build started\x07\n${'step ok\n'.repeat(20)}progress 10%\x08\x08\x0850%\x07\ndone\n`
    for (const type of ['text/plain', 'text/html', 'text/plain; charset=iso-8859-1']) {
      expect((await fetchFrom(respond(200, { 'content-type': type }, log))).result.body, type).toEqual({ kind: type === 'text/html' ? 'html' : 'text', content: log })
    }
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'ding\x07'))).result.body).toEqual({ kind: 'text', content: 'ding\x07' })
    // Deterministic noise with no NUL, as a compressed or encrypted file's body is: about one byte in ten a binary control.
    let seed = 7
    const noise = Buffer.from(new Uint8Array(2048).map(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >> 16) % 255) + 1))
    const binaries: [string, Buffer][] = [
      ['png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR'), noise])],
      ['gzip', gzipSync(Buffer.from('plain words '.repeat(500)))],
      ['elf', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56), noise])],
      ['noise', noise],
    ]
    for (const [name, bytes] of binaries) {
      const { error } = await failFrom(respond(200, { 'content-type': 'text/plain' }, bytes))
      expect([error.code, error.message], name).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', 'the body is not text, though its Content-Type says "text/plain" (binary bytes in its first 1024)'])
    }
  })

  it('one rule with a type or without (sniffed): a log with a BEL, or a few controls, is text either way', async () => {
    const log = `build started\x07\n${'step ok\n'.repeat(120)}progress 10%\x08\x08\x08\x0850%\x07\n${'\x07'.repeat(20)}done\n`
    for (const body of ['ding\x07', 'a\x07\x07\x07 three bells in a line of a log that is 128 characters long, which is four in a hundred and twenty-eight ok', log]) {
      expect((await fetchFrom(respond(200, {}, body))).result.body, JSON.stringify(body.slice(0, 20))).toEqual({ kind: 'text', content: body })
      expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, body))).result.body).toEqual({ kind: 'text', content: body })
    }
  })

  it('binary bytes past one in 32 of those looked at (random bytes of 128 to 600, which held fewer than 64), or a NUL (a PNG, a gzip, an ELF cut to 16 bytes), are not text, with a type or without', async () => {
    const declaredNot = 'the body is not text, though its Content-Type says "text/plain" (binary bytes in its first 1024)'
    const sniffedNot = 'unsupported content type "unknown": the body is not text'
    // Deterministic noise with no NUL, as a compressed or encrypted file's body is: about one byte in ten a binary control.
    let seed = 11
    const noise = (length: number) => Buffer.from(new Uint8Array(length).map(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >> 16) % 255) + 1))
    const binaries: [string, Buffer][] = [
      ...[128, 300, 600, 2048].map((length): [string, Buffer] => [`noise ${length}`, noise(length)]),
      ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])],
      ['gzip', gzipSync(Buffer.from('plain words '.repeat(500))).subarray(0, 16)],
      ['elf', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    ]
    for (const [name, bytes] of binaries) {
      expect((await failFrom(respond(200, { 'content-type': 'text/plain' }, bytes))).error.message, name).toBe(declaredNot)
      const { error } = await failFrom(respond(200, {}, bytes))
      expect([error.code, error.message], name).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', sniffedNot])
    }
  })

  it('short random bytes read as windows-1252 (not UTF-8, no other charset) are not text for one binary byte, DEL or byte windows-1252 leaves undefined; short real text (a log line with a BEL, CJK, emoji, a Latin-1 word) still is', async () => {
    const randoms: [string, Buffer][] = [
      // No C0 control at all, but 0x81 and 0x8E: no windows-1252 text holds 0x81.
      ['16 bytes, an undefined byte', Buffer.from([0xa7, 0x3f, 0xd1, 0x81, 0x5c, 0xe9, 0x2e, 0x9b, 0xc4, 0x71, 0xf0, 0x28, 0x8e, 0xb5, 0x66, 0xd9])],
      // One C0 control (0x13) in 24 bytes: the share rule needs two.
      ['24 bytes, one control', Buffer.from([0xd2, 0x6a, 0xb9, 0xfe, 0x13, 0x44, 0xa1, 0xc3, 0x5e, 0x9f, 0xe4, 0x27, 0x85, 0x70, 0xcd, 0xb2, 0x39, 0xf7, 0x8b, 0x61, 0xae, 0xd5, 0x4f, 0xc0])],
      // One control and one DEL in 40 bytes (DEL was not counted).
      ['40 bytes, a control and a DEL', Buffer.from(Array.from({ length: 40 }, (_, index) => (index === 7 ? 0x1e : index === 30 ? 0x7f : 0xa0 + ((index * 37) % 95))))],
    ]
    for (const [name, bytes] of randoms) {
      expect((await failFrom(respond(200, {}, bytes))).error.message, name).toBe('unsupported content type "unknown": the body is not text')
      expect((await failFrom(respond(200, { 'content-type': 'text/plain' }, bytes))).error.message, name).toBe('the body is not text, though its Content-Type says "text/plain" (binary bytes in its first 1024)')
    }
    const texts: [string, string | Buffer][] = [
      ['a log line with a BEL', 'ding\x07'],
      ['a UTF-8 log line with an accent and a BEL', 'café ready\x07\n'],
      ['CJK', '日本語のテキスト'],
      ['emoji', '😀👍 ok'],
      ['a Latin-1 word', Buffer.from('caf\xe9 cr\xe8me', 'latin1')],
      ['windows-1252 quotes and a dash', Buffer.from('\x93hi\x94 \x97 \x80 5', 'latin1')],
    ]
    for (const [name, body] of texts) {
      const want = typeof body === 'string' ? body : body.toString('latin1').replace('\x93', '“').replace('\x94', '”').replace('\x97', '—').replace('\x80', '€')
      for (const headers of [{}, { 'content-type': 'text/plain' }]) {
        expect((await fetchFrom(respond(200, headers, body))).result.body, `${name} ${JSON.stringify(headers)}`).toEqual({ kind: 'text', content: want })
      }
    }
  })

  it('short random bytes labelled charset=utf-8 (not UTF-8) are not text; a Latin-1 text whose server says UTF-8 still is, its accents U+FFFD', async () => {
    const declaredNot = (type: string) => `the body is not text, though its Content-Type says "${type}" (binary bytes in its first 1024)`
    // Deterministic noise (no NUL) of a length: bodies this short held too few control bytes for the share.
    let seed = 7
    const noise = (length: number) => Buffer.from(new Uint8Array(length).map(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >> 16) % 255) + 1))
    const randoms: [string, Buffer][] = [
      // No control byte, DEL or undefined byte at all: 12 of its 16 bytes are past ASCII.
      ['16 bytes, no control', Buffer.from([0xa7, 0x3f, 0xd1, 0xe3, 0x5c, 0xe9, 0xb2, 0x9b, 0xc4, 0x71, 0xf0, 0xa8, 0x8e, 0xb5, 0xfa, 0xd9])],
      ['16 bytes, an undefined byte', Buffer.from([0xa7, 0x3f, 0xd1, 0x81, 0x5c, 0xe9, 0x2e, 0x9b, 0xc4, 0x71, 0xf0, 0x28, 0x8e, 0xb5, 0x66, 0xd9])],
      ...[20, 32, 48].map((length): [string, Buffer] => [`noise ${length}`, noise(length)]),
    ]
    for (const [name, bytes] of randoms) {
      for (const type of ['text/plain; charset=utf-8', 'text/html; charset=UTF-8']) {
        expect((await failFrom(respond(200, { 'content-type': type }, bytes))).error.message, `${name} ${type}`).toBe(declaredNot(type))
      }
    }
    const latin1: [string, string][] = [
      ['a word', 'café'],
      ['a name', 'Müller & Söhne'],
      ['Icelandic', 'Þjóðólfur'],
      ['Portuguese', 'ação e educação'],
      ['Spanish', '¿Qué pasó, Señor Núñez?'],
      ['French with guillemets', '« Voilà ! » dit-il à Noël.'],
    ]
    for (const [name, text] of latin1) {
      const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-8' }, Buffer.from(text, 'latin1')))
      expect(result.body, name).toEqual({ kind: 'text', content: text.replace(/[^\x00-\x7f]/g, '\ufffd') })
    }
  })

  it('a PDF (declared, or sniffed from %PDF-) is its bytes, whole; one past maxPdfBytes is WEB_FETCH_TOO_LARGE, by its length or its bytes', async () => {
    const bytes = Buffer.from('%PDF-1.7\n' + 'x'.repeat(2000))
    for (const type of ['application/pdf', 'application/octet-stream']) {
      const { result } = await fetchFrom(respond(200, { 'content-type': type }, bytes))
      expect(result.body.kind === 'pdf' && Buffer.from(result.body.bytes).equals(bytes), type).toBe(true)
      expect(result.truncated).toBe(false)
    }
    expect((await failFrom(respond(200, { 'content-type': 'application/pdf' }, bytes), { maxPdfBytes: 1000 })).error.code).toBe('WEB_FETCH_TOO_LARGE')
    expect((await failFrom(respond(200, { 'content-type': 'application/octet-stream' }, bytes), { maxPdfBytes: 1500 })).error.message).toContain('maxPdfBytes')
  })

  it('a body served as application/pdf without %PDF- in its first 1024 bytes (an HTML login or error page) is read as what it is; with the header further in, or binary, it stays a PDF', async () => {
    const login = '<!doctype html><html><body><h1>Sign in</h1><p>to read this report</p></body></html>'
    expect((await fetchFrom(respond(200, { 'content-type': 'application/pdf' }, login))).result.body).toEqual({ kind: 'html', content: login })
    expect((await fetchFrom(respond(403, { 'content-type': 'application/pdf' }, 'Forbidden'))).result.body).toEqual({ kind: 'text', content: 'Forbidden' })
    for (const bytes of [Buffer.from(`${'\n'.repeat(500)}%PDF-1.4\n%%EOF`), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2])]) {
      const { result } = await fetchFrom(respond(200, { 'content-type': 'application/pdf' }, bytes))
      expect(result.body.kind === 'pdf' && Buffer.from(result.body.bytes).equals(bytes)).toBe(true)
    }
  })

  it('W2: a missing or octet-stream Content-Type on a text-looking body is sniffed', async () => {
    const bare: Handler = (_request, response) => {
      response.removeHeader('content-type')
      response.end('just words\n')
    }
    expect((await fetchFrom(bare)).result.body).toEqual({ kind: 'text', content: 'just words\n' })
    expect((await fetchFrom(respond(200, { 'content-type': 'application/octet-stream' }, '<!DOCTYPE html><title>t</title>'))).result.body.kind).toBe('html')
    expect((await fetchFrom(respond(404, {}, '<html><body>gone</body></html>'))).result).toMatchObject({ statusCode: 404, body: { kind: 'html' } })
  })

  it('application/xhtml+xml: CDATA sections become their text, escaped (an HTML parser reads them as comments); text/html keeps them as sent; 400 KB of sections or of one unterminated one in one pass', async () => {
    const page = '<html><body><p><![CDATA[a < b & c]]></p><![CDATA[]]><p>x</p></body></html>'
    expect((await fetchFrom(respond(200, { 'content-type': 'application/xhtml+xml' }, page))).result.body).toEqual({ kind: 'html', content: '<html><body><p>a &lt; b &amp; c</p><p>x</p></body></html>' })
    expect((await fetchFrom(respond(200, { 'content-type': 'text/html' }, page))).result.body).toEqual({ kind: 'html', content: page })
    const many = '<![CDATA[<&>]]>'.repeat(27_000)
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'application/xhtml+xml' }, many))).result.body)).toBe('&lt;&amp;&gt;'.repeat(27_000))
    const open = `<![CDATA[${'<'.repeat(400_000)}`
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'application/xhtml+xml' }, open))).result.body)).toBe('&lt;'.repeat(400_000))
  })

  it('Content-Type sent twice, or one header listing two types: types that disagree are sniffed (an HTML page is HTML, an image refused); types that agree are that type, with the last charset', async () => {
    const typed = (types: string | string[], body: string | Buffer): Handler => (_request, response) => {
      response.writeHead(200, { 'content-type': types })
      response.end(body)
    }
    const page = '<!doctype html><html><body><h1>Title</h1></body></html>'
    // Read as one type, the first was a text body (its markup as text) and the second refused (WEB_UNSUPPORTED_CONTENT_TYPE).
    for (const types of [['text/html', 'image/png'], ['image/png', 'text/html'], 'image/png, text/html', ['text/plain', 'text/html']]) {
      expect((await fetchFrom(typed(types, page))).result.body, JSON.stringify(types)).toEqual({ kind: 'html', content: page })
    }
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])
    for (const types of [['text/html', 'image/png'], 'text/html, image/png']) {
      const { error } = await failFrom(typed(types, png))
      expect([error.code, error.message], JSON.stringify(types)).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', 'unsupported content type "text/html, image/png": the body is not text'])
    }
    // The same type twice is that type; its charset is the last one given, as WHATWG's extraction takes it.
    const latin = Buffer.from('<p>caf\xe9</p>', 'latin1')
    for (const types of [['text/html', 'text/html; charset=iso-8859-1'], 'text/html; charset=utf-8, text/html; charset=iso-8859-1', 'TEXT/HTML, text/html;charset="iso-8859-1"']) {
      expect((await fetchFrom(typed(types, latin))).result.body, JSON.stringify(types)).toEqual({ kind: 'html', content: '<p>café</p>' })
    }
    expect((await fetchFrom(typed(['text/plain', 'text/plain'], 'just words'))).result.body).toEqual({ kind: 'text', content: 'just words' })
    // A comma inside a quoted parameter does not split the type.
    expect((await fetchFrom(typed('text/plain; charset=utf-8; note="a, b"', 'just words'))).result.body).toEqual({ kind: 'text', content: 'just words' })
  })
})

describe('encodings', () => {
  it('F16: Latin-1 by header', async () => {
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=iso-8859-1' }, Buffer.from([0x63, 0x61, 0x66, 0xe9])))).result.body)).toBe('café')
  })

  it('Shift_JIS by header, and by <meta charset> when the header has none', async () => {
    const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]) // 日本語
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset="Shift_JIS"' }, sjis))).result.body)).toBe('日本語')
    const page = Buffer.concat([Buffer.from('<html><head><meta charset="shift_jis"></head><body>'), sjis, Buffer.from('</body></html>')])
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, page))).result.body)).toContain('<body>日本語</body>')
  })

  it('a BOM decides the encoding and is stripped (UTF-8 and UTF-16LE)', async () => {
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, Buffer.from('\ufeffhé', 'utf8')))).result.body)).toBe('hé')
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé', 'utf16le')])
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=iso-8859-1' }, utf16))).result.body)).toBe('hé')
  })

  it('a <meta> naming UTF-16 (any spelling) or x-user-defined is read the WHATWG way: UTF-8, windows-1252', async () => {
    for (const label of ['utf-16', 'UTF-16BE', 'utf-16le', 'unicode', 'ucs-2']) {
      const page = `<html><head><meta charset="${label}"></head><body>héllo — 日本</body></html>`
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, page))).result.body), label).toBe(page)
    }
    const latin = Buffer.concat([Buffer.from('<meta http-equiv="content-type" content="text/html; charset=x-user-defined">'), Buffer.from([0xe9])])
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, latin))).result.body)).toBe('<meta http-equiv="content-type" content="text/html; charset=x-user-defined">é')
  })

  it('F17: an unknown charset label in the header is WEB_UNSUPPORTED_CONTENT_TYPE; an unknown <meta> falls back to UTF-8', async () => {
    expect((await failFrom(respond(200, { 'content-type': 'text/plain; charset=not-a-charset' }, 'x'))).error).toMatchObject({ code: 'WEB_UNSUPPORTED_CONTENT_TYPE', message: 'unsupported charset "not-a-charset"' })
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, '<meta charset="klingon">é'))).result.body)).toBe('<meta charset="klingon">é')
    // A label in single quotes (server code that writes charset='utf-8') is the label inside them.
    for (const [type, bytes, read] of [["text/plain; charset='utf-8'", Buffer.from('é'), 'é'], ["text/html;charset='ISO-8859-1'", Buffer.from([0xe9]), 'é']] as const) {
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': type }, bytes))).result.body), type).toBe(read)
    }
  })

  it('a body no BOM, header or <meta> labels is UTF-8 when its first 1024 bytes are, else windows-1252 (a Latin-1 page or text file without a charset); a label wins', async () => {
    const latin = Buffer.from('caf\xe9 cr\xe8me, Z\xfcrich \x97 \x93quoted\x94', 'latin1')
    const read = 'café crème, Zürich — “quoted”'
    for (const headers of [{ 'content-type': 'text/plain' }, {}, { 'content-type': 'application/octet-stream' }]) {
      expect(bodyText((await fetchFrom(respond(200, headers, latin))).result.body), JSON.stringify(headers)).toBe(read)
    }
    const page = Buffer.concat([Buffer.from('<p>'), latin, Buffer.from('</p>')])
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, page))).result.body)).toBe(`<p>${read}</p>`)
    // UTF-8 stays UTF-8, also with a character across byte 1024 (the window's cut) or its first one past it.
    for (const utf8 of [`${'a'.repeat(1023)}é and 日本`, `${'a'.repeat(1022)}日本 more`, `${'a'.repeat(2000)}é`, 'héllo']) {
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, utf8))).result.body)).toBe(utf8)
    }
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-8' }, latin))).result.body)).toBe('caf\ufffd cr\ufffdme, Z\ufffdrich \ufffd \ufffdquoted\ufffd')
  })

  /** A text/plain body of `bytes`: its first `from` bytes in one write, then `step` bytes a turn. */
  const trickled = (bytes: Buffer, step: number, from = 0): Handler => (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    if (from) response.write(bytes.subarray(0, from))
    let at = from
    const next = () => {
      if (at >= bytes.byteLength) return void response.end()
      response.write(bytes.subarray(at, (at += step)))
      setImmediate(next)
    }
    next()
  }

  it('an unlabelled body is windows-1252 when any of its bytes is not UTF-8, not only its first 1024: a Latin-1 file whose first accent is past them, in chunks or at its very end', async () => {
    const latin = (text: string) => Buffer.from(text, 'latin1')
    const ascii = 'plain ascii line\n'.repeat(200)
    const cases: [string, Buffer][] = [
      ['accent at byte 3,400', latin(`${ascii}caf\xe9 cr\xe8me`)],
      ['accent past 60 KB of ASCII', latin(`${'x'.repeat(60_000)} Z\xfcrich`)],
      // 0xE9 alone at the end is the lead of a 3-byte UTF-8 character the body never finishes.
      ['accent as the last byte', latin(`${ascii}caf\xe9`)],
    ]
    for (const [name, bytes] of cases) {
      const want = bytes.toString('latin1')
      for (const headers of [{ 'content-type': 'text/plain' }, {}]) {
        expect(bodyText((await fetchFrom(respond(200, headers, bytes))).result.body), `${name} ${JSON.stringify(headers)}`).toBe(want)
      }
      // Sent in small chunks (an accent's byte alone, the rest later): the same text.
      expect(bodyText((await fetchFrom(trickled(bytes, 997))).result.body), `${name}, in chunks`).toBe(want)
    }
    const page = latin(`<html><body><p>${ascii}</p><p>na\xefve fa\xe7ade</p></body></html>`)
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/html' }, page))).result.body)).toContain('naïve façade')
    // The char cap counts the text as read again: a Latin-1 body past it is cut there, still Latin-1.
    const long = latin(`${ascii}\xe9${'\xe8'.repeat(5000)}`)
    const capped = (await fetchFrom(respond(200, { 'content-type': 'text/plain' }, long), { maxBodyChars: 4000 })).result
    expect([bodyText(capped.body), capped.truncated]).toEqual([long.toString('latin1').slice(0, 4000), true])
    // UTF-8 split across chunks at every offset stays UTF-8, and a U+FFFD the body holds is not a reason to switch.
    const utf8 = `${ascii}é 日本 😀 \ufffd end`
    const bytes = Buffer.from(utf8)
    expect(bodyText((await fetchFrom(trickled(bytes, 1, 3390))).result.body)).toBe(utf8)
  })

  it('Content-Encoding: deflate is read zlib-wrapped or raw (as some servers send it, and browsers read it), whole, in one chunk or byte by byte; an empty encoded body is empty; corrupt deflate is still a coded error', async () => {
    const text = 'deflated words '.repeat(2000)
    for (const [name, bytes] of [['zlib', deflateSync(text)], ['raw', deflateRawSync(text)], ['raw, level 0', deflateRawSync(text, { level: 0 })]] as const) {
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' }, bytes))).result.body), name).toBe(text)
      const trickle: Handler = (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'Deflate' })
        response.write(bytes.subarray(0, 1))
        setTimeout(() => response.end(bytes.subarray(1)), 20)
      }
      expect(bodyText((await fetchFrom(trickle)).result.body), `${name}, its first byte alone`).toBe(text)
    }
    // An empty body under an encoding is empty, not compressed data cut short.
    for (const encoding of ['deflate', 'gzip', 'br']) {
      expect((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': encoding }))).result.body, encoding).toEqual({ kind: 'text', content: '' })
    }
    const bomb = deflateRawSync(Buffer.alloc(20_000_000, 'a'))
    const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' }, bomb), { maxResponseBytes: 1000, maxBodyChars: 5000 })
    expect([bodyText(result.body).length, result.truncated]).toEqual([1000, true])
    expect((await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' }, Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff])))).error.code).toBe('WEB_PROVIDER_ERROR')
  })

  it('gzip, deflate and br bodies are decompressed; the byte cap counts decompressed bytes', async () => {
    const text = 'compressible '.repeat(1000)
    for (const [encoding, bytes] of [['gzip', gzipSync(text)], ['br', brotliCompressSync(text)]] as const) {
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': encoding }, bytes))).result.body), encoding).toBe(text)
    }
    const bomb = gzipSync(Buffer.alloc(20_000_000, 'a'))
    const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, bomb), { maxResponseBytes: 1000, maxBodyChars: 5000 })
    expect([bodyText(result.body).length, result.truncated]).toEqual([1000, true])
    expect((await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'zstd' }, 'x'))).error.code).toBe('WEB_UNSUPPORTED_CONTENT_TYPE')
  })

  it('a list of content codings (`gzip, gzip`, `deflate, br`, the header sent twice) is undone last first; more than maxContentCodings, or one unknown, is a coded refusal; a corrupt inner layer is named', async () => {
    const text = 'twice compressed '.repeat(1000)
    const cases = [
      ['gzip, gzip', gzipSync(gzipSync(text))],
      ['deflate, br', brotliCompressSync(deflateRawSync(text))],
      ['GZIP , identity, deflate', deflateSync(gzipSync(text))],
      ['gzip, gzip, gzip', gzipSync(gzipSync(gzipSync(text)))],
    ] as const
    for (const [encoding, bytes] of cases) {
      expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': encoding }, bytes))).result.body), encoding).toBe(text)
    }
    // The header sent twice: undici joins the two as one list.
    const twice: Handler = (_request, response) => {
      response.setHeader('content-type', 'text/plain')
      response.setHeader('content-encoding', ['gzip', 'br'])
      response.end(brotliCompressSync(gzipSync(text)))
    }
    expect(bodyText((await fetchFrom(twice)).result.body)).toBe(text)
    // An inner layer that is empty is an empty body; the byte cap counts the innermost bytes.
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' }, gzipSync(Buffer.alloc(0))))).result.body).toEqual({ kind: 'text', content: '' })
    const bomb = gzipSync(gzipSync(Buffer.alloc(20_000_000, 'a')))
    const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' }, bomb), { maxResponseBytes: 1000, maxBodyChars: 5000 })
    expect([bodyText(result.body).length, result.truncated]).toEqual([1000, true])
    const four = await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip, gzip, gzip' }, gzipSync(gzipSync(gzipSync(gzipSync(text))))))
    expect([four.error.code, four.error.message]).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', 'the body has 4 content codings (Content-Encoding: gzip, gzip, gzip, gzip); web_fetch undoes at most 3 (maxContentCodings)'])
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip, gzip, gzip' }, gzipSync(gzipSync(gzipSync(gzipSync(text))))), { maxContentCodings: 4 })).result.body)).toBe(text)
    const unknown = await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, zstd' }, 'x'))
    expect([unknown.error.code, unknown.error.message]).toEqual(['WEB_UNSUPPORTED_CONTENT_TYPE', 'unsupported content encoding "zstd"'])
    // The outer gzip is whole, the inner "gzip" is not gzip at all.
    const corrupt = await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'br, gzip' }, gzipSync('this is not brotli')))
    expect(corrupt.error.code).toBe('WEB_PROVIDER_ERROR')
    expect(corrupt.error.message).toMatch(/^web fetch failed: the body's brotli data \(Content-Encoding: br, gzip\) is corrupt: /)
  })

  it("corrupt or cut compressed data is said as the body's, not zlib's bare words; the code stays WEB_PROVIDER_ERROR", async () => {
    const text = 'compressible '.repeat(1000)
    const zipped = gzipSync(text)
    const cases = [
      ['gzip', Buffer.from('this is not gzip at all'), "the body's gzip data (Content-Encoding: gzip) is corrupt: incorrect header check (Z_DATA_ERROR)"],
      ['gzip', zipped.subarray(0, zipped.length - 20), "the body's gzip data (Content-Encoding: gzip) ends before it is complete: unexpected end of file (Z_BUF_ERROR)"],
      ['br', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), "the body's brotli data (Content-Encoding: br) is corrupt: "],
    ] as const
    for (const [encoding, bytes, message] of cases) {
      const { error } = await failFrom(respond(200, { 'content-type': 'text/plain', 'content-encoding': encoding }, bytes))
      expect(error.code, message).toBe('WEB_PROVIDER_ERROR')
      expect(error.message.startsWith(`web fetch failed: ${message}`), error.message).toBe(true)
    }
  })

  it('response headers over maxHeaderBytes are said as such, naming the field; a larger maxHeaderBytes reads them', async () => {
    const handler = respond(200, { 'content-type': 'text/plain', 'x-big': 'b'.repeat(20_000) }, 'ok')
    expect((await failFrom(handler)).error).toMatchObject({
      code: 'WEB_PROVIDER_ERROR',
      message: "web fetch failed: the server's response headers are larger than 16384 bytes, the maxHeaderBytes limit (UND_ERR_HEADERS_OVERFLOW)",
    })
    expect(bodyText((await fetchFrom(handler, { maxHeaderBytes: 65_536 })).result.body)).toBe('ok')
  })
})

describe('caps (W2: truncate, say so, never split a character)', () => {
  it('F11, F12: a body over the byte cap is cut and marked; exactly at the cap it is whole', async () => {
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'abcdef'), { maxResponseBytes: 4 })).result).toMatchObject({ body: { content: 'abcd' }, truncated: true })
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'abcd'), { maxResponseBytes: 4 })).result).toMatchObject({ body: { content: 'abcd' }, truncated: false })
  })

  it('F10 (W2): a Content-Length over the cap is read up to the cap instead of failing', async () => {
    const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain', 'content-length': '10' }, '0123456789'), { maxResponseBytes: 4 })
    expect(result).toMatchObject({ body: { content: '0123' }, truncated: true })
  })

  it('F13: the character cap cuts and marks', async () => {
    expect((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'abcdef'), { maxBodyChars: 3 })).result).toMatchObject({ body: { content: 'abc' }, truncated: true })
  })

  it('a byte cut inside a multi-byte character drops the partial character instead of leaving U+FFFD', async () => {
    // "aé€😀": 1 + 2 + 3 + 4 bytes. Every cap inside a character keeps only whole ones.
    const body = Buffer.from('aé€😀', 'utf8')
    const expected: Record<number, string> = { 1: 'a', 2: 'a', 3: 'aé', 4: 'aé', 5: 'aé', 6: 'aé€', 7: 'aé€', 8: 'aé€', 9: 'aé€' }
    for (const [cap, text] of Object.entries(expected)) {
      const { result } = await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=utf-8' }, body), { maxResponseBytes: Number(cap) })
      expect(bodyText(result.body), `cap ${cap}`).toBe(text)
      expect(result.truncated).toBe(true)
    }
    const sjis = Buffer.from([0x61, 0x93, 0xfa, 0x96, 0x7b]) // a日本
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain; charset=shift_jis' }, sjis), { maxResponseBytes: 4 })).result.body)).toBe('a日')
  })

  it('issue 31 item 1: an HTML body is kept whole up to the byte cap; the character cap cuts only text', async () => {
    const html = `<html><head><script>${'x'.repeat(150_000)}</script></head><body><p>the article</p></body></html>`
    const whole = (await fetchFrom(respond(200, { 'content-type': 'text/html' }, html), { maxBodyChars: 1000 })).result
    expect([bodyText(whole.body).length, whole.truncated]).toEqual([html.length, false])
    const sniffed = (await fetchFrom(respond(200, {}, html), { maxBodyChars: 1000 })).result
    expect([sniffed.body.kind, bodyText(sniffed.body).length]).toEqual(['html', html.length])
    const bytes = (await fetchFrom(respond(200, { 'content-type': 'text/html' }, html), { maxBodyChars: 1000, maxResponseBytes: 2000 })).result
    expect([bodyText(bytes.body).length, bytes.truncated]).toEqual([2000, true])
    const text = (await fetchFrom(respond(200, { 'content-type': 'text/plain' }, html), { maxBodyChars: 1000 })).result
    expect([bodyText(text.body).length, text.truncated]).toEqual([1000, true])
  })

  it('the character cap counts characters (code points) and cuts between whole ones: never half an emoji, never a letter without its accent', async () => {
    const cut = async (body: string, maxBodyChars: number) => bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, body), { maxBodyChars })).result.body)
    expect(await cut('ab😀c', 3)).toBe('ab😀')
    expect(await cut('abe\u0301c', 3)).toBe('ab')
    // An emoji counts once: 3,000 of them under a cap of 4,000 are whole (cut at 4,000 UTF-16 units, 2,000 reached the model).
    expect(await cut('😀'.repeat(3000), 4000)).toBe('😀'.repeat(3000))
  })

  it('a 500 MB body stops at the byte cap: the server sees the connection closed long before the end', async () => {
    const written = { bytes: 0, closed: false }
    const { result } = await fetchFrom(huge(500_000_000, written), { maxResponseBytes: 5_000_000, maxBodyChars: 10_000_000 })
    expect([bodyText(result.body).length, result.truncated]).toEqual([5_000_000, true])
    for (let i = 0; i < 100 && !written.closed; i++) await sleep(20)
    expect(written.closed).toBe(true)
    expect(written.bytes).toBeLessThan(50_000_000)
  })
})

describe('redirects', () => {
  function chain(routes: Record<string, [number, Record<string, string>, string?]>): Handler {
    return (request, response) => {
      const [status, headers, body] = routes[request.url ?? ''] ?? [404, { 'content-type': 'text/plain' }, 'no route']
      response.writeHead(status, headers)
      response.end(body ?? '')
    }
  }

  it('F18, F26: same-origin absolute and relative redirects are followed; the result URL is the last', async () => {
    const { result } = await fetchFrom(chain({ '/start': [302, { location: '/dir/a' }], '/dir/a': [301, { location: 'b' }], '/dir/b': [200, { 'content-type': 'text/plain' }, 'end'] }), {}, '/start')
    expect(result.url).toMatch(/\/dir\/b$/)
    expect(bodyText(result.body)).toBe('end')
  })

  it('a Location written in raw UTF-8 bytes is read as UTF-8, as browsers read it (not as Latin-1: /caf%C3%83%C2%A9); raw bytes that are not UTF-8 stay as they came', async () => {
    const raw = (text: string, encoding: BufferEncoding) => Buffer.from(text, encoding).toString('latin1')
    const routes = chain({
      '/utf8': [302, { location: raw('/caf\u00e9/\u65e5\u672c?q=cr\u00e8me', 'utf8') }],
      '/latin1': [302, { location: raw('/caf\u00e9/x', 'latin1') }],
      '/caf%C3%A9/%E6%97%A5%E6%9C%AC?q=cr%C3%A8me': [200, { 'content-type': 'text/plain' }, 'utf-8 target'],
      '/caf%C3%A9/x': [200, { 'content-type': 'text/plain' }, 'latin-1 target'],
    })
    const utf8 = (await fetchFrom(routes, {}, '/utf8')).result
    expect([utf8.url.replace(/^http:\/\/[^/]+/, ''), bodyText(utf8.body)]).toEqual(['/caf%C3%A9/%E6%97%A5%E6%9C%AC?q=cr%C3%A8me', 'utf-8 target'])
    expect(bodyText((await fetchFrom(routes, {}, '/latin1')).result.body)).toBe('latin-1 target')
  })

  it('F19: a cross-origin redirect is WEB_REDIRECT_BLOCKED and the other origin sees nothing', async () => {
    const other = await serve(respond(200, { 'content-type': 'text/plain' }, 'other'))
    const { error } = await failFrom(chain({ '/': [302, { location: `${other.origin}/` }] }))
    expect(error.code).toBe('WEB_REDIRECT_BLOCKED')
    expect(error.message).toContain(other.origin)
    expect(other.connections()).toBe(0)
  })

  it('F20: a same-origin Location with credentials is WEB_BLOCKED_URL, saying it was the redirect, without the credentials', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: `http://user:pw@127.0.0.1:${server.port}/x` })
      response.end()
    })
    const error = await failure(provider(LOOPBACK_ALLOWED).fetch({ url: `${server.origin}/` }))
    expect([error.code, error.message]).toEqual(['WEB_BLOCKED_URL', `the server redirected to http://***@127.0.0.1:${server.port}/x, which was not followed: credentials in URLs are not allowed`])
  })

  it('a redirect to file:, javascript:, data: or ftp:, or one too long, is WEB_REDIRECT_BLOCKED naming the target, not WEB_INVALID_URL as if the caller had asked for it', async () => {
    const long = `/${'a'.repeat(3000)}`
    const targets = ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<h1>hi</h1>', 'ftp://127.0.0.1/x', long]
    const server = await serve(chain(Object.fromEntries(targets.map((target, index) => [`/${index}`, [302, { location: target }]]))))
    for (const [index, target] of targets.entries()) {
      const error = await failure(provider(LOOPBACK_ALLOWED).fetch({ url: `${server.origin}/${index}` }))
      const shown = target === long ? `${`${server.origin}${long}`.slice(0, 200)}…` : target
      const why = target === long ? 'URL exceeds the maximum length of 2048' : `only http and https URLs can be fetched, not ${target.slice(0, target.indexOf(':'))}:`
      expect([error.code, error.message]).toEqual(['WEB_REDIRECT_BLOCKED', `the server redirected to ${shown}, which was not followed: ${why}`])
    }
  })

  it('F21–F24: the redirect budget is checked first and counts hops exactly', async () => {
    let hits = 0
    const endless: Handler = (request, response) => {
      hits++
      response.writeHead(302, { location: `/r${hits}` })
      response.end()
    }
    const { error } = await failFrom(endless, { maxRedirects: 2 })
    expect([error.code, error.message, hits]).toEqual(['WEB_REDIRECT_BLOCKED', 'exceeded the maximum of 2 redirects', 3])

    const landing = await fetchFrom(chain({ '/': [302, { location: '/1' }], '/1': [302, { location: '/2' }], '/2': [200, { 'content-type': 'text/plain' }, 'landed'] }), { maxRedirects: 2 })
    expect([bodyText(landing.result.body), landing.server.requests.length]).toEqual(['landed', 3])

    const crossOver = await failFrom(chain({ '/': [302, { location: '/1' }], '/1': [302, { location: 'http://elsewhere.test/' }] }), { maxRedirects: 1 })
    expect(crossOver.error.message).toBe('exceeded the maximum of 1 redirects')

    expect((await failFrom(chain({ '/': [302, { location: '/1' }] }), { maxRedirects: 0 })).error.code).toBe('WEB_REDIRECT_BLOCKED')
    expect(bodyText((await fetchFrom(respond(200, { 'content-type': 'text/plain' }, 'direct'), { maxRedirects: 0 })).result.body)).toBe('direct')
  })

  it('F25: a redirect without Location is WEB_PROVIDER_ERROR; other 3xx statuses are final', async () => {
    expect((await failFrom(chain({ '/': [302, {}] }))).error.code).toBe('WEB_PROVIDER_ERROR')
    expect((await fetchFrom(chain({ '/': [300, { 'content-type': 'text/plain', location: '/x' }, 'choices'] }))).result).toMatchObject({ statusCode: 300, body: { content: 'choices' } })
  })
})

describe('time and cancellation', () => {
  const never: Handler = () => {}
  const stalls: Handler = (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.write('partial')
  }

  it('F28: a pre-aborted signal never touches the network; aborting a pending request is WEB_ABORTED', async () => {
    const server = await serve(never)
    const fetcher = provider(LOOPBACK_ALLOWED)
    const controller = new AbortController()
    controller.abort()
    expect((await failure(fetcher.fetch({ url: `${server.origin}/` }, controller.signal))).code).toBe('WEB_ABORTED')
    expect(server.connections()).toBe(0)
    const later = new AbortController()
    setTimeout(() => later.abort(new Error('user cancelled')), 50)
    expect((await failure(fetcher.fetch({ url: `${server.origin}/` }, later.signal))).code).toBe('WEB_ABORTED')
  })

  it('F29, F30: the provider timeout covers the headers and the body read; a body it stops mid-way is the text that arrived, said incomplete', async () => {
    expect((await failFrom(never, { timeoutMs: 50 })).error).toMatchObject({ code: 'WEB_FETCH_TIMEOUT', message: 'web fetch timed out' })
    const { result } = await fetchFrom(stalls, { timeoutMs: 100 })
    expect(result).toMatchObject({ statusCode: 200, body: { kind: 'text', content: 'partial' }, truncated: true, incomplete: { code: 'WEB_FETCH_TIMEOUT', reason: 'the fetch timed out (timeoutMs 100 ms) after 7 bytes of the body' } })
  })

  it('a body cut mid-way (the connection reset or closed before its end) is the text that arrived, WEB_FETCH_CUT; a caller\'s abort, a cut before any byte, and a PDF stay errors', async () => {
    const cutAfter = (type: string, first: string | Buffer, length = 100_000): Handler => (_request, response) => {
      response.writeHead(200, { 'content-type': type, 'content-length': String(length) })
      response.write(first, () => setTimeout(() => response.socket?.resetAndDestroy(), 30))
    }
    const page = `<html><body><h1>Title</h1><p>${'words '.repeat(300)}</p>`
    const cut = (await fetchFrom(cutAfter('text/html', page))).result
    expect(cut).toMatchObject({ body: { kind: 'html', content: page }, truncated: true, incomplete: { code: 'WEB_FETCH_CUT' } })
    expect(cut.incomplete?.reason.startsWith(`the body broke off after ${page.length} bytes, before its end (`)).toBe(true)
    // A short text body (under the 1024 bytes the kind is decided on), and a character cut at the stop dropped.
    const short = (await fetchFrom(cutAfter('text/plain; charset=utf-8', Buffer.from('café 日本').subarray(0, 10)))).result
    expect([short.body, short.incomplete?.code]).toEqual([{ kind: 'text', content: 'café 日' }, 'WEB_FETCH_CUT'])
    // Compressed: the text inflated so far.
    const zipped: Handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
      const bytes = gzipSync(Array.from({ length: 20_000 }, (_, index) => `line ${index * 7919} of text\n`).join(''))
      response.write(bytes.subarray(0, 2000), () => setTimeout(() => response.socket?.resetAndDestroy(), 30))
    }
    const inflated = (await fetchFrom(zipped)).result
    expect([inflated.incomplete?.code, bodyText(inflated.body).startsWith('line 0 of text\nline 7919 of text\n'), bodyText(inflated.body).length > 2000]).toEqual(['WEB_FETCH_CUT', true, true])
    // Cut before any byte of the body: nothing to give, an error as before.
    expect((await failFrom(cutAfter('text/plain', ''))).error.code).toBe('WEB_PROVIDER_ERROR')
    // A PDF cannot be read in part.
    expect((await failFrom(cutAfter('application/pdf', '%PDF-1.7\n' + 'x'.repeat(3000)))).error.code).toBe('WEB_PROVIDER_ERROR')
    // The caller's abort mid-body: its answer is no longer wanted.
    const server = await serve(stalls)
    const controller = new AbortController()
    const pending = provider(LOOPBACK_ALLOWED).fetch({ url: `${server.origin}/` }, controller.signal)
    await sleep(100)
    controller.abort()
    expect((await failure(pending)).code).toBe('WEB_ABORTED')
  })

  it('a compressed body cut while zlib has its bytes still to inflate (the threadpool busy) is the text they hold, not an error that dropped them', async () => {
    // The threadpool (zlib inflates there) is kept busy before the body is sent, so the cut lands
    // while the arrived bytes wait to be inflated; destroying the decompressor at the cut dropped
    // them, and with no text out yet the page was an error. However slow the machine, the bytes
    // are in zlib's queue before the cut, and the fix waits for them.
    const busy = () => new Promise<void>((resolve) => pbkdf2('x', 'y', 100_000, 64, 'sha512', () => resolve()))
    const zipped: Handler = (_request, response) => {
      const jobs = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) * 2 }, busy)
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
      const bytes = gzipSync(Array.from({ length: 20_000 }, (_, index) => `line ${index * 7919} of text\n`).join(''))
      response.write(bytes.subarray(0, 2000), () => setTimeout(() => response.socket?.resetAndDestroy(), 30))
      void Promise.all(jobs)
    }
    const inflated = (await fetchFrom(zipped)).result
    expect([inflated.incomplete?.code, bodyText(inflated.body).startsWith('line 0 of text\nline 7919 of text\n')]).toEqual(['WEB_FETCH_CUT', true])
  })

  it('a body that trickles within the deadline is read whole; one that trickles past it times out', async () => {
    const trickle =
      (pieces: number): Handler =>
      (_request, response: ServerResponse) => {
        response.writeHead(200, { 'content-type': 'text/plain' })
        let sent = 0
        const timer = setInterval(() => {
          if (response.destroyed) return clearInterval(timer)
          response.write('x')
          if (++sent === pieces) {
            clearInterval(timer)
            response.end()
          }
        }, 10)
      }
    expect(bodyText((await fetchFrom(trickle(5), { timeoutMs: 5000 })).result.body)).toBe('xxxxx')
    const late = (await fetchFrom(trickle(1000), { timeoutMs: 150 })).result
    expect([late.incomplete?.code, late.truncated, /^x+$/.test(bodyText(late.body))]).toEqual(['WEB_FETCH_TIMEOUT', true, true])
  })

  it('F37: an outer deadline that fires first is WEB_ABORTED, not WEB_FETCH_TIMEOUT', async () => {
    const server = await serve(never)
    const error = await failure(provider({ ...LOOPBACK_ALLOWED, timeoutMs: 10_000 }).fetch({ url: `${server.origin}/` }, AbortSignal.timeout(50)))
    expect(error.code).toBe('WEB_ABORTED')
  })

  it('fetchWithin: a child of the caller\'s lifetime: its abort is WEB_ABORTED, the provider timeout still WEB_FETCH_TIMEOUT, and the caller\'s lifetime lives on', async () => {
    const server = await serve(never)
    const fetcher = provider({ ...LOOPBACK_ALLOWED, timeoutMs: 10_000 })
    const ended = Lifetime.following(undefined)
    ended.abort()
    expect((await failure(fetcher.fetchWithin({ url: `${server.origin}/` }, ended))).code).toBe('WEB_ABORTED')
    expect(server.connections()).toBe(0)
    const caller = Lifetime.following(undefined, { timeoutMs: 50 })
    expect((await failure(fetcher.fetchWithin({ url: `${server.origin}/` }, caller))).code).toBe('WEB_ABORTED')
    const outlived = Lifetime.following(undefined)
    expect((await failure(provider({ ...LOOPBACK_ALLOWED, timeoutMs: 50 }).fetchWithin({ url: `${server.origin}/` }, outlived))).code).toBe('WEB_FETCH_TIMEOUT')
    expect(outlived.active).toBe(true)
    outlived.dispose()
  })

  it('a DNS lookup that never answers is cut by the caller’s abort and by the provider timeout', async () => {
    const resolver = () => new Promise<never>(() => {})
    const later = new AbortController()
    setTimeout(() => later.abort(new Error('user cancelled')), 50)
    expect((await failure(provider({}, { resolver }).fetch({ url: 'http://slow-dns.test/' }, later.signal))).code).toBe('WEB_ABORTED')
    expect((await failure(provider({ timeoutMs: 50 }, { resolver }).fetch({ url: 'http://slow-dns.test/' }))).code).toBe('WEB_FETCH_TIMEOUT')
  })

  it('F31: connection refused is WEB_PROVIDER_ERROR', async () => {
    // A port that was just free: nothing listens there now.
    const closed = await serve(respond(200, {}))
    await closed.close()
    const error = await failure(provider(LOOPBACK_ALLOWED).fetch({ url: `${closed.origin}/` }))
    expect(error.code).toBe('WEB_PROVIDER_ERROR')
    expect(error.message).toContain('ECONNREFUSED')
  })
})

export type { IncomingMessage }

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/** Answers "ok", but closes the connection without an answer on its `dropAt`-th request (1: every fresh connection). */
function closingOnRequest(dropAt: number, dropped: { count: number }): Handler {
  const served = new WeakMap<Socket, number>()
  return (request, response) => {
    const count = (served.get(request.socket) ?? 0) + 1
    served.set(request.socket, count)
    if (count === dropAt) {
      dropped.count++
      request.socket.destroy()
      return
    }
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.end('ok')
  }
}

describe('kept connections', () => {
  it('a GET lost on a kept connection the server closes as it is reused is sent once more, on a new connection', async () => {
    const dropped = { count: 0 }
    const server = await serve(closingOnRequest(2, dropped))
    const fetcher = provider(LOOPBACK_ALLOWED)
    expect(bodyText((await fetcher.fetch({ url: `${server.origin}/a` })).body)).toBe('ok')
    // undici hands the connection back to its pool a turn of the event loop after the body ended.
    await turns(3)
    expect(bodyText((await fetcher.fetch({ url: `${server.origin}/b` })).body)).toBe('ok')
    expect(dropped.count).toBe(1)
    expect(server.requests.map((request) => request.url)).toEqual(['/a', '/b', '/b'])
    expect(server.connections()).toBe(2)
  })

  it('a fresh connection closed before its answer is not retried: WEB_PROVIDER_ERROR', async () => {
    const dropped = { count: 0 }
    const { server, error } = await failFrom(closingOnRequest(1, dropped))
    expect(error.code).toBe('WEB_PROVIDER_ERROR')
    expect(server.requests).toHaveLength(1)
  })
})

import { describe, expect, it } from 'vitest'
import { localPath } from '../src/line-text.ts'
import { renderUri, uriRenderer } from '../src/render-uri.ts'

// Reference checklist (reference/lsp.md §6.8), items 173–182.

const WS = 'file:///home/u/proj'

describe('renderUri on POSIX workspaces', () => {
  it('173: a file inside renders relative', () => {
    expect(renderUri(`${WS}/src/a.ts`, WS)).toBe('src/a.ts')
  })

  it('174: a file outside renders as its absolute path', () => {
    expect(renderUri('file:///usr/lib/node/b.d.ts', WS)).toBe('/usr/lib/node/b.d.ts')
    expect(renderUri('file:///home/u/other/c.ts', WS)).toBe('/home/u/other/c.ts')
  })

  it('175: the workspace itself renders as .', () => {
    expect(renderUri(WS, WS)).toBe('.')
    expect(renderUri(`${WS}/`, WS)).toBe('.')
  })

  it('176: a first segment that merely starts with .. is inside', () => {
    expect(renderUri(`${WS}/..generated/a.ts`, WS)).toBe('..generated/a.ts')
  })

  it('179: a backslash is an ordinary filename character on POSIX', () => {
    expect(renderUri('file:///home/u/proj/dir%5Cname/a.ts', WS)).toBe('dir\\name/a.ts')
  })

  it('decodes percent-escapes', () => {
    expect(renderUri(`${WS}/multibyte%20%23%20file.ts`, WS)).toBe('multibyte # file.ts')
    expect(renderUri(`${WS}/caf%C3%A9.ts`, WS)).toBe('café.ts')
  })

  it('the root workspace', () => {
    expect(renderUri('file:///a.ts', 'file:///')).toBe('a.ts')
  })

  it('a workspace deeper than the target: the target is outside', () => {
    expect(renderUri('file:///short', 'file:///short/deeper')).toBe('/short')
  })
})

describe('renderUri on Windows workspaces', () => {
  it('177: drive letters compare case-insensitively; another drive is absolute with forward slashes', () => {
    expect(renderUri('file:///C:/WORKSPACE/src/a.ts', 'file:///c:/workspace')).toBe('src/a.ts')
    expect(renderUri('file:///D:/lib/b.ts', 'file:///C:/workspace')).toBe('D:/lib/b.ts')
  })

  it('an encoded drive colon counts as a drive', () => {
    expect(renderUri('file:///c%3A/workspace/src/a.ts', 'file:///c%3A/workspace')).toBe('src/a.ts')
  })

  it('178: UNC workspaces', () => {
    const unc = 'file://server/share/workspace'
    expect(renderUri('file://server/share/workspace/a.ts', unc)).toBe('a.ts')
    expect(renderUri('file://SERVER/share/workspace/src/A.ts', 'file://server/Share/Workspace')).toBe('src/A.ts')
    expect(renderUri('file://other/share/b.ts', unc)).toBe('//other/share/b.ts')
    expect(renderUri('file:///D:/lib/a.ts', unc)).toBe('D:/lib/a.ts')
  })

  it('178: a POSIX-looking target beside a Windows workspace keeps its POSIX path', () => {
    expect(renderUri('file:///a.ts', 'file://server/')).toBe('/a.ts')
    expect(renderUri('file:///', 'file:///C:/workspace')).toBe('/')
  })
})

describe('renderUri keeps what it cannot decode verbatim', () => {
  it('180: unparsable URIs, non-file workspaces, bad escapes, encoded separators', () => {
    expect(renderUri('file://[', WS)).toBe('file://[')
    expect(renderUri('file:///a.ts', 'https://example.com/ws')).toBe('file:///a.ts')
    expect(renderUri('file:///bad%ZZ/a.ts', 'file:///bad%ZZ')).toBe('file:///bad%ZZ/a.ts')
    expect(renderUri('file:///a.ts', 'file:///bad%ZZ')).toBe('file:///a.ts')
    expect(renderUri('file:///C:/workspace/bad%5Cpath', 'file:///C:/workspace')).toBe('file:///C:/workspace/bad%5Cpath')
    expect(renderUri('file:///a.ts', 'not a url')).toBe('file:///a.ts')
  })

  it('181: other schemes', () => {
    expect(renderUri('untitled:Untitled-1', WS)).toBe('untitled:Untitled-1')
    expect(renderUri('jdt://contents/Foo.class', WS)).toBe('jdt://contents/Foo.class')
  })

  it('182: an encoded slash or NUL', () => {
    expect(renderUri('file:///bad%2Fpath', 'file:///')).toBe('file:///bad%2Fpath')
    expect(renderUri('file:///bad%00path', 'file:///')).toBe('file:///bad%00path')
  })
})

describe('URL work per call (issue 27 item 2)', () => {
  /** The URLs parsed while `work` runs (the global constructor, which render-uri.ts and localPath use). */
  function urlsParsedBy(work: () => void): number {
    const Original = globalThis.URL
    let parsed = 0
    globalThis.URL = class extends Original {
      constructor(...args: ConstructorParameters<typeof URL>) {
        super(...args)
        parsed++
      }
    } as typeof URL
    try {
      work()
    } finally {
      globalThis.URL = Original
    }
    return parsed
  }

  it('a warm call renders and locates the URIs it saw before without parsing a URL, with the same answers', () => {
    const workspace = 'file:///home/u/url-work'
    const uris = [`${workspace}/src/a.ts`, `${workspace}/src/a.ts`, 'file:///usr/lib/b.d.ts', 'untitled:x', 'file://host/share/c.ts']
    const answer = () => uris.map((uri) => [uriRenderer(workspace)(uri), localPath(uri)])
    let first: unknown
    // The first: the workspace and each distinct file: URI (untitled: is never parsed).
    expect(urlsParsedBy(() => (first = answer()))).toBe(1 + 3 + 3)
    let again: unknown
    // Before: every call parsed them all again (9 counted here on each call).
    expect(urlsParsedBy(() => (again = answer()))).toBe(0)
    expect(again).toEqual(first)
    expect(first).toEqual([
      ['src/a.ts', '/home/u/url-work/src/a.ts'],
      ['src/a.ts', '/home/u/url-work/src/a.ts'],
      ['/usr/lib/b.d.ts', '/usr/lib/b.d.ts'],
      ['untitled:x', undefined],
      ['file://host/share/c.ts', undefined],
    ])
  })
})

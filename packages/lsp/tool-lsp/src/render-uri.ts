import { posix, win32 } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * How a location URI is shown: relative to the provider's workspace URI when inside it, else the
 * absolute path; anything that is not a decodable `file:` URI is shown verbatim. The path rules
 * come from the URIs themselves (a drive letter or a UNC host means Windows), never from the
 * machine running the harness, so a Windows server's answers render the same on Linux.
 */
export function renderUri(uri: string, workspaceUri: string): string {
  return uriRenderer(workspaceUri)(uri)
}

/** Workspace URIs whose renderer is kept, and URIs each keeps rendered (cleared whole when full). */
const RENDERERS_KEPT = 16
const SHOWN_KEPT = 1024
const renderers = new Map<string, (uri: string) => string>()

/**
 * `renderUri` against one workspace URI: the workspace is parsed once, and each distinct URI
 * rendered once (a references answer names a few files many times). Both are pure functions of the
 * strings, so the renderer is kept across calls: a warm call renders its answer without parsing a URL.
 */
export function uriRenderer(workspaceUri: string): (uri: string) => string {
  let renderer = renderers.get(workspaceUri)
  if (!renderer) {
    if (renderers.size >= RENDERERS_KEPT) renderers.clear()
    renderers.set(workspaceUri, (renderer = rendererOf(workspaceUri)))
  }
  return renderer
}

function rendererOf(workspaceUri: string): (uri: string) => string {
  const parsed = parseUrl(workspaceUri)
  const workspace = parsed?.protocol === 'file:' ? parsed : undefined
  const workspaceIsWindows = workspace !== undefined && looksWindows(workspace)
  const workspacePath = workspace && toPath(workspace, workspaceIsWindows)
  const shown = new Map<string, string>()
  return (uri) => {
    if (!uri.startsWith('file:') || workspacePath === undefined) return uri
    let path = shown.get(uri)
    if (path === undefined) {
      if (shown.size >= SHOWN_KEPT) shown.clear()
      shown.set(uri, (path = relativeTo(uri, workspacePath, workspaceIsWindows)))
    }
    return path
  }
}

function relativeTo(uri: string, workspacePath: string, workspaceIsWindows: boolean): string {
  const target = parseUrl(uri)
  if (!target) return uri
  // A POSIX-looking target (`file:///a.ts`) stays POSIX even beside a Windows workspace.
  const targetIsWindows = workspaceIsWindows && looksWindows(target)
  const targetPath = toPath(target, targetIsWindows)
  if (targetPath === undefined) return uri
  if (targetIsWindows !== workspaceIsWindows) return targetPath

  const rules = workspaceIsWindows ? win32 : posix
  const relative = rules.relative(workspacePath, targetPath)
  const outside = relative === '..' || relative.startsWith(`..${rules.sep}`) || rules.isAbsolute(relative)
  const shown = relative === '' ? '.' : outside ? targetPath : relative
  return workspaceIsWindows ? shown.replaceAll('\\', '/') : shown
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

const DRIVE_PATH = /^\/[a-z](:|%3a)/i

/** A UNC host or a drive-letter path. */
function looksWindows(url: URL): boolean {
  return url.hostname !== '' || DRIVE_PATH.test(url.pathname)
}

/** WHATWG file-URL-to-path for the chosen platform; undefined for encoded separators, bad escapes or NUL. */
function toPath(url: URL, windows: boolean): string | undefined {
  try {
    const path = fileURLToPath(url, { windows })
    return path.includes('\0') ? undefined : path
  } catch {
    return undefined
  }
}

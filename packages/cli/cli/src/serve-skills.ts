import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { DIRECTORY_MIME_TYPE, SKILL_LIMITS, SKILLS_EXTENSION_ID, skillEntry, type Skill } from '@modelcontextprotocol/server/ext/skills'
import { nodeSkillFiles } from '@modelcontextprotocol/server/ext/skills/node'
import { errorMessage, quote, type Session } from 'dsh-core'
import type { SkillRegistry, SkillSummary } from 'dsh-skill'
import { z } from 'zod'
import { RpcCode, RpcError, type Routes } from './serve-rpc.ts'

/** What `dsh serve` declares for SEP-2640: the extension with `resources/directory/read`, on top of resources. */
export const SKILLS_CAPABILITIES = { resources: {}, extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } } as const

/** Caching fields of 2026-07-28 results; `ttlMs: 0`: a client asks again rather than keep a stale listing. */
const CACHE = { ttlMs: 0, cacheScope: 'private' } as const

const Uri = z.string().min(1).max(4096)
const ListSkillsRequest = z.object({ method: z.literal('skills/list'), params: z.looseObject({ cursor: z.string().optional() }).optional() })
const GetSkillRequest = z.object({ method: z.literal('skills/get'), params: z.looseObject({ uri: Uri }) })
const ListResourcesRequest = z.object({ method: z.literal('resources/list'), params: z.looseObject({ cursor: z.string().optional() }).optional() })
const ReadResourceRequest = z.object({ method: z.literal('resources/read'), params: z.looseObject({ uri: Uri }) })
const ListResourceTemplatesRequest = z.object({ method: z.literal('resources/templates/list'), params: z.looseObject({ cursor: z.string().optional() }).optional() })
const ReadDirectoryRequest = z.object({ method: z.literal('resources/directory/read'), params: z.looseObject({ uri: Uri, cursor: z.string().optional() }) })

/**
 * The SEP-2640 routes: `skills/list`, `skills/get`, `resources/list` (each SKILL.md), `resources/read`
 * of a listed file, `resources/directory/read`, and an empty `resources/templates/list`. One page each: a cursor is accepted and ignored (the
 * whole answer is the first page, and no `nextCursor` is sent).
 */
export function serveSkills(routes: Routes, served: ServedSkills): void {
  routes.add(ListSkillsRequest, () => served.list())
  routes.add(GetSkillRequest, (request) => served.get(request.params.uri))
  routes.add(ListResourcesRequest, () => served.resources())
  routes.add(ReadResourceRequest, (request) => served.read(request.params.uri))
  routes.add(ReadDirectoryRequest, (request) => served.readDirectory(request.params.uri))
  // Every skill file is listed or reached through a directory: there is no template to fill in.
  routes.add(ListResourceTemplatesRequest, () => ({ resourceTemplates: [], ...CACHE }))
}

/** A served skill: its entry (the SDK computed digests, sizes and frontmatter) and where its files are. */
interface Served {
  readonly entry: Skill
  readonly directory: string
  /**
   * The relative path of each listed file, by its URI as listed. The SDK's `skillEntry` writes a
   * path's segments percent-encoded (`my notes.md` is `my%20notes.md`), so a URI is no path.
   */
  readonly files: ReadonlyMap<string, string>
  /** The entry's files (always the array: these skills are never dynamic). */
  readonly listed: readonly { readonly uri: string; readonly size: number; readonly digest: string }[]
  /** The registry's summary it was built from, to build it again. */
  readonly summary: SkillSummary
}

interface Catalog {
  /** Mutable: `skills/get` puts the entry it built again in place of the listed one. */
  readonly skills: Map<string, Served>
}

const SCHEME = 'skill://'
const MANIFEST = 'SKILL.md'

/**
 * The composition's skills over SEP-2640 (issue 30 item 4): every skill of the served session's
 * view that lives in a skill directory (a SKILL.md with its files beside it) as `skill://<name>/…`.
 * Entries are built by the SDK's `skillEntry` from the directory's bytes (SHA-256 digest and size per
 * file, the frontmatter verbatim), read through its `nodeSkillFiles` adapter (no symlinks or special
 * files, nothing outside the directory); a skill over the SEP's limits, with a file the adapter
 * refuses, or whose frontmatter the SDK cannot publish is left out and logged. Skills without a
 * directory (registered in code, or served by another MCP server) are not re-served. The catalog is
 * built on the first request after each change of the registry.
 */
export class ServedSkills {
  private catalog: Promise<Catalog> | undefined
  /**
   * Why each skill left out was left out, as last logged: the catalog is built again after every
   * change of any skill, and a skill that stays unservable is logged again only when the reason changes.
   */
  private readonly leftOut = new Map<string, string>()

  constructor(
    private readonly skills: SkillRegistry,
    private readonly session: Session,
    private readonly warn: (line: string) => void,
    /** `--max-read-bytes`: the largest content one `resources/read` sends, as sent. */
    private readonly maxReadBytes: number,
  ) {
    skills.onChange(() => (this.catalog = undefined))
  }

  async list(): Promise<{ skills: Skill[] } & typeof CACHE> {
    const { skills } = await this.current()
    return { skills: [...skills.values()].map((served) => served.entry), ...CACHE }
  }

  /**
   * One skill's entry, rebuilt from its directory on each call: the registry watches SKILL.md files
   * only, so a file beside one (a template, a script) can change, appear or go without a registry
   * change, and an entry kept from the listing would then carry digests its files no longer match.
   */
  async get(uri: string): Promise<{ skill: Skill } & typeof CACHE> {
    const pending = this.current()
    const catalog = await pending
    const name = nameOf(uri) ?? ''
    const served = catalog.skills.get(name)
    if (!served || served.entry.uri !== uri) throw new RpcError(RpcCode.INVALID_PARAMS, `no skill is served at ${quote(uri, 200)}`)
    const fresh = await this.serve(served.summary)
    // A newer catalog may have replaced this one while the directory was read: leave that one alone.
    if (this.catalog === pending) {
      if (fresh) catalog.skills.set(name, fresh)
      else catalog.skills.delete(name)
    }
    if (!fresh) throw new RpcError(RpcCode.INVALID_PARAMS, `no skill is served at ${quote(uri, 200)} any more: its directory changed (dsh serve's log says why)`)
    return { skill: fresh.entry, ...CACHE }
  }

  /** The SKILL.md of each skill, as `resources/list` shows it. */
  async resources(): Promise<{ resources: { uri: string; name: string; description: string; mimeType: string }[] }> {
    const { skills } = await this.current()
    return {
      resources: [...skills.values()].map(({ entry }) => ({ uri: entry.uri, name: entry.frontmatter.name, description: entry.frontmatter.description, mimeType: 'text/markdown' })),
    }
  }

  async read(uri: string): Promise<{ contents: ({ uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string })[] } & typeof CACHE> {
    const { served } = await this.locate(uri)
    const path = served.files.get(uri)
    if (path === undefined) throw new RpcError(RpcCode.INVALID_PARAMS, `no skill file is served at ${quote(uri, 200)}`)
    let bytes: Uint8Array | undefined
    let size: number
    try {
      // A listed file that grew past what a whole skill may hold since is refused unread.
      size = (await lstat(join(served.directory, path))).size
      if (size > SKILL_LIMITS.bytes) throw new Error(`it is ${size} bytes now, over the SEP-2640 limit of ${SKILL_LIMITS.bytes} bytes for a whole skill`)
      // Sent, its content is at least as long as the file: one over the bound is refused unread.
      if (size <= this.maxReadBytes) bytes = await nodeSkillFiles(served.directory).read(path)
    } catch (error) {
      this.catalog = undefined
      throw new RpcError(RpcCode.INVALID_PARAMS, `${quote(uri, 200)} cannot be read any more: ${errorMessage(error)}`)
    }
    if (bytes === undefined) throw tooLarge(uri, `at least ${size}`, this.maxReadBytes)
    // The file changed since the listing (its SKILL.md did not, or the registry would have said):
    // its bytes are served as they are now, and the next listing is built again to match them.
    const listed = served.listed.find((file) => file.uri === uri)
    if (listed && (listed.size !== bytes.byteLength || listed.digest !== (await digestOf(bytes)))) this.catalog = undefined
    const text = textOf(bytes)
    const sent = text === undefined ? base64Length(bytes.byteLength) : jsonStringBytes(bytes)
    if (sent > this.maxReadBytes) throw tooLarge(uri, String(sent), this.maxReadBytes)
    return { contents: [text === undefined ? { uri, mimeType: 'application/octet-stream', blob: Buffer.from(bytes).toString('base64') } : { uri, mimeType: mimeTypeOf(path), text }], ...CACHE }
  }

  /** `resources/directory/read`: the direct children of a directory of a served skill, from its entry. */
  async readDirectory(uri: string): Promise<{ resources: { uri: string; name: string; mimeType: string; size?: number }[] } & typeof CACHE> {
    const { served, path } = await this.locate(uri)
    const prefix = path ? `${path}/` : ''
    if (path !== undefined && !served.listed.some((file) => relative(served, file.uri).startsWith(prefix))) {
      throw new RpcError(RpcCode.INVALID_PARAMS, `${quote(uri, 200)} is not a directory of a served skill`)
    }
    const root = served.entry.uri.slice(0, -MANIFEST.length - 1)
    const children = new Map<string, { uri: string; name: string; mimeType: string; size?: number }>()
    for (const file of served.listed) {
      const rest = relative(served, file.uri).slice(prefix.length)
      const [name, ...deeper] = rest.split('/')
      if (!name || children.has(name)) continue
      const child = `${root}/${prefix}${name}`
      // The URI keeps the listing's encoding; the name is the file's own (`my notes.md`).
      const shown = decodedSegment(name)
      children.set(name, deeper.length ? { uri: child, name: shown, mimeType: DIRECTORY_MIME_TYPE } : { uri: child, name: shown, mimeType: mimeTypeOf(shown), size: file.size })
    }
    return { resources: [...children.values()], ...CACHE }
  }

  private async locate(uri: string): Promise<{ served: Served; path: string | undefined }> {
    const name = nameOf(uri)
    const served = name === undefined ? undefined : (await this.current()).skills.get(name)
    if (!served) throw new RpcError(RpcCode.INVALID_PARAMS, `no skill is served at ${quote(uri, 200)}`)
    // `skill://<name>` is the root; anything else is `skill://<name>/<path>`.
    const rest = uri.slice(SCHEME.length + name!.length + 1)
    return { served, path: rest || undefined }
  }

  private current(): Promise<Catalog> {
    return (this.catalog ??= this.build().catch((error: unknown) => {
      this.catalog = undefined
      throw error
    }))
  }

  private async build(): Promise<Catalog> {
    const listed = await this.skills.list({ cwd: this.session.cwd, scope: this.session })
    const skills = new Map<string, Served>()
    for (const summary of listed) {
      const served = await this.serve(summary)
      if (served) skills.set(summary.name, served)
    }
    return { skills }
  }

  private async serve(summary: SkillSummary): Promise<Served | undefined> {
    const base = summary.resourceBase
    if (base?.kind !== 'directory') return undefined
    try {
      const files = await readSkillDirectory(base.path)
      if (!files) return undefined
      const entry = await skillEntry(summary.name, files)
      this.leftOut.delete(summary.name)
      const listed = Array.isArray(entry.resources) ? entry.resources : []
      return { entry, directory: base.path, files: pathsByUri(entry, listed, new Set(Object.keys(files))), listed, summary }
    } catch (error) {
      const line = `skill "${summary.name}" is not served over MCP: ${errorMessage(error)}`
      if (this.leftOut.get(summary.name) !== line) this.warn(line)
      this.leftOut.set(summary.name, line)
      return undefined
    }
  }
}

/** Every file of a skill directory, by relative path; undefined when it has no SKILL.md (a flat-file skill's folder). */
async function readSkillDirectory(directory: string): Promise<Record<string, Uint8Array> | undefined> {
  const adapter = nodeSkillFiles(directory)
  const top = await adapter.list('')
  if (!top.some((entry) => entry.name === MANIFEST && entry.kind === 'file')) return undefined
  const files: Record<string, Uint8Array> = {}
  const overLimits = () => new Error(`${directory} is over the SEP-2640 limits (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes)`)
  let count = 0
  let bytes = 0
  const walk = async (dir: string, entries: Awaited<ReturnType<typeof adapter.list>>): Promise<void> => {
    for (const entry of entries) {
      const path = dir ? `${dir}/${entry.name}` : entry.name
      switch (entry.kind) {
        case 'directory':
          await walk(path, await adapter.list(path))
          break
        case 'file': {
          // Counted from its size before it is read: a 1.5 GB file dropped in a skill directory must
          // not be read whole into the server's memory at every rebuild only to be refused after.
          count++
          const size = (await lstat(join(directory, path))).size
          if (count > SKILL_LIMITS.files || bytes + size > SKILL_LIMITS.bytes) throw overLimits()
          const content = await adapter.read(path)
          bytes += content.byteLength
          if (bytes > SKILL_LIMITS.bytes) throw overLimits()
          files[path] = content
          break
        }
        case 'unsupported':
          throw new Error(`${join(directory, path)} is a symlink or a special file, which a skill served over MCP cannot hold`)
      }
    }
  }
  await walk('', top)
  return files
}

/** Each listed file's relative path by its URI: the URI's segments decoded, kept only when they name a file read. */
function pathsByUri(entry: Skill, listed: Served['listed'], read: ReadonlySet<string>): Map<string, string> {
  const root = entry.uri.slice(0, -MANIFEST.length)
  const paths = new Map<string, string>()
  for (const { uri } of listed) {
    if (!uri.startsWith(root)) continue
    let path: string
    try {
      path = uri.slice(root.length).split('/').map(decodeURIComponent).join('/')
    } catch {
      continue
    }
    if (read.has(path)) paths.set(uri, path)
  }
  return paths
}

/** `skill://deploy/scripts/x.sh` → `deploy`: our skills have one-segment skill paths. */
function nameOf(uri: string): string | undefined {
  if (!uri.startsWith(SCHEME)) return undefined
  return uri.slice(SCHEME.length).split('/')[0] || undefined
}

function relative(served: Served, uri: string): string {
  const root = served.entry.uri.slice(0, -MANIFEST.length)
  return uri.startsWith(root) ? uri.slice(root.length) : uri
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function mimeTypeOf(path: string): string {
  if (path.endsWith('.md')) return 'text/markdown'
  if (path.endsWith('.json')) return 'application/json'
  if (path.endsWith('.sh')) return 'text/x-shellscript'
  return 'text/plain'
}

/**
 * The SEP-2640 digest of bytes, as the SDK's `skillEntry` writes it and with the same WebCrypto
 * hash: it runs on the threadpool, where node:crypto's `createHash` held the event loop for the
 * whole file (16 MiB: 10-30 ms at load 8-10, bench/RESULTS.md).
 */
export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  return `sha256:${Buffer.from(hash).toString('hex')}`
}

/**
 * A read whose content is over `--max-read-bytes` as sent. A coded refusal, not a cut: a skill's
 * file is checked against its listed size and digest, so part of one is a verification failure at
 * the client, and an answer has no way to say "more follows" (resources/read has no ranges).
 */
function tooLarge(uri: string, bytes: string, limit: number): RpcError {
  return new RpcError(
    RpcCode.INVALID_PARAMS,
    `${quote(uri, 200)} is not sent: its content would be ${bytes} bytes as sent, over dsh serve's --max-read-bytes ${limit} (a resources/read answers a file whole, in one message; the MCP SDKs' stdio clients close the connection on a message over 10 MiB) [${SERVE_READ_TOO_LARGE}]`,
    { code: SERVE_READ_TOO_LARGE, limit },
  )
}

export const SERVE_READ_TOO_LARGE = 'SERVE_READ_TOO_LARGE'

function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3)
}

/**
 * The bytes of UTF-8 text as a JSON string: `JSON.stringify` writes `"` and `\` as two characters,
 * the C0 controls as two (`\n`, `\t` …) or six (`\u0001`), and everything else as it is. One pass
 * over the bytes (a 16 MiB file: a few ms), where stringifying to measure would build the text twice.
 */
function jsonStringBytes(bytes: Uint8Array): number {
  let extra = 0
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!
    if (byte === 0x22 || byte === 0x5c || byte === 0x08 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d) extra += 1
    else if (byte < 0x20) extra += 5
  }
  return bytes.length + extra + 2
}

/** The text of bytes that are UTF-8 and lose nothing decoded; undefined for anything else (sent as a blob). */
function textOf(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}

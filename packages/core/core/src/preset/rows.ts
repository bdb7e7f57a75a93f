import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { isRecord } from '../json.ts'
import { lazy } from '../lazy.ts'
import { describeIssues } from '../tools/schema.ts'
import { readSmallRegularFile } from '../regular-file.ts'
import { PresetError } from './errors.ts'
import { plainData } from './plain-data.ts'

/** One row of a preset file, in the cordis loader format. A `cordis/group` row nests rows in `config`. */
export interface PresetRow {
  /** Unique in the composition; defaults to `name`. Overlays address rows by it. */
  readonly id: string
  /** A package specifier (`dsh-lsp-stdio`, `dsh-core/tools`) or a path relative to the file (`./echo.ts`). */
  readonly name: string
  readonly config: unknown
  readonly disabled: boolean
  /** The file the row (or its latest overlay patch) came from, for messages. */
  readonly file: string
  /** The file that gave the row its `name`; a relative plugin path resolves against it, not against a config-only patch. */
  readonly nameFile: string
  /** Top-level config key → the file that last set it, so a plugin can resolve a relative path where it was written. */
  readonly configFiles: Readonly<Record<string, string>>
  /**
   * The file that last set `disabled` (for a row of a disabled group, the file that disabled the
   * group): where a row turned off was turned off, which a later config-only patch (`file`) is not.
   * Absent when no file set it.
   */
  readonly disabledFile?: string
  /**
   * The id of the group whose `disabled: true` turned this row off (the outermost, as `disabledFile`),
   * so a message can name the row that holds the flag; absent when the row itself is off (or on).
   * Set by `everyPluginRow` only.
   */
  readonly disabledGroup?: string
  readonly children?: readonly PresetRow[]
}

export const GROUP = 'cordis/group'

const RowShape = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  config: z.unknown().optional(),
  disabled: z.boolean().optional(),
})
/** An overlay's row (a patch may leave out `name`), built with the first overlay: most starts have none (issue 27 item 5). */
export const overlayRowShape = lazy(() => RowShape.extend({ name: z.string().min(1).optional() }))

/** A preset or overlay larger than this is refused (`PRESET_INVALID`): the shipped ones are a few KB. */
export const MAX_PRESET_FILE_BYTES = 4 * 1024 * 1024

/**
 * Reads a preset or overlay file. Only reads: nothing here ever writes to it. With `twin`, the file's
 * parsed twin (`presetTwin`, yaml-text.ts) stands in for its YAML while it was made from exactly that text.
 */
export async function readRows(file: string, kind: 'preset' | 'overlay', twin = false): Promise<unknown[]> {
  let text: string
  try {
    text = await readSmallRegularFile(file, MAX_PRESET_FILE_BYTES)
  } catch (error) {
    // Missing or unreadable is PRESET_NOT_FOUND; a FIFO, a device or a directory (`--config /dev/zero`,
    // `<(…)`) or an oversized file is PRESET_INVALID: a FIFO with no writer blocked the threadpool's
    // open for good (and with it the exit after SIGINT), /dev/zero filled memory up to V8's string limit.
    const code = (error as NodeJS.ErrnoException).code
    throw new PresetError(`${kind} ${(error as Error).message}`, code === 'ENOTREGULAR' || code === 'EFBIG' ? 'PRESET_INVALID' : 'PRESET_NOT_FOUND', { cause: error })
  }
  const parsed = twin ? await parsedTwin(file, text) : undefined
  // The YAML parser is imported when a file has to be parsed: a shipped preset read through its twin
  // never compiles it (issue 27 item 5).
  const value = parsed ? parsed.value : (await import('./yaml-text.ts')).parseYaml(text, `${kind} ${file}`)
  const plain = plainData(value, `${kind} ${file}`)
  if (plain === null) return []
  if (!Array.isArray(plain)) throw new PresetError(`${kind} ${file} must be a list of rows`, 'PRESET_INVALID')
  return plain as unknown[]
}

/** The value in `file`'s twin, when there is one and it was made from exactly `text`; else undefined (parse the YAML). */
async function parsedTwin(file: string, text: string): Promise<{ value: unknown } | undefined> {
  let twin: unknown
  try {
    twin = JSON.parse(await readFile(`${file}${TWIN_SUFFIX}`, 'utf8'))
  } catch {
    return undefined
  }
  // An edited preset no longer matches its twin's text, and is parsed again.
  if (!isRecord(twin) || twin.yaml !== text || !('value' in twin)) return undefined
  return { value: twin.value }
}

export const TWIN_SUFFIX = '.json'

export function parseRows(values: readonly unknown[], file: string, where = 'row'): PresetRow[] {
  return values.map((value, index) => {
    const label = `${file}: ${where} ${index + 1}`
    const parsed = RowShape.safeParse(value)
    if (!parsed.success) throw new PresetError(`${label}: ${describeIssues(parsed.error, 'row')}`, 'PRESET_INVALID')
    const { id, name, config, disabled } = parsed.data
    const row = { id: id ?? name, name, config, disabled: disabled ?? false, file, nameFile: file, configFiles: keysFrom(config, file, {}), ...(disabled !== undefined ? { disabledFile: file } : {}) }
    if (name !== GROUP) return row
    if (!Array.isArray(config)) throw new PresetError(`${label} (${row.id}): a ${GROUP} row needs a list of rows as its config`, 'PRESET_INVALID')
    return { ...row, config: undefined, children: parseRows(config, file, `${where} ${index + 1} > row`) }
  })
}

/**
 * Applies an overlay: a row whose id matches an existing row patches it (`config` deep-merged,
 * `disabled` and `name` replaced); any other row is appended. Returns new rows; inputs are untouched.
 */
export function applyOverlay(base: readonly PresetRow[], values: readonly unknown[], file: string): PresetRow[] {
  let rows = [...base]
  values.forEach((value, index) => {
    const label = `${file}: row ${index + 1}`
    const parsed = overlayRowShape().safeParse(value)
    if (!parsed.success) throw new PresetError(`${label}: ${describeIssues(parsed.error, 'row')}`, 'PRESET_INVALID')
    const id = parsed.data.id ?? parsed.data.name
    if (!id) throw new PresetError(`${label}: an overlay row needs an id or a name`, 'PRESET_INVALID')
    let matched = false
    const patch = (row: PresetRow): PresetRow => {
      if (row.id === id) {
        matched = true
        const { name, config, disabled } = parsed.data
        const children = row.children && config !== undefined ? parseRows(asList(config, label), file, `row ${index + 1} > row`) : row.children
        return {
          ...row,
          // Whatever the patch changed, messages about the row now point at the overlay.
          file,
          ...(name !== undefined ? { name, nameFile: file } : {}),
          ...(disabled !== undefined ? { disabled, disabledFile: file } : {}),
          ...(config !== undefined && !row.children ? { config: deepMerge(row.config, config), configFiles: keysFrom(config, file, row.configFiles) } : {}),
          ...(children ? { children } : {}),
        }
      }
      return row.children ? { ...row, children: row.children.map(patch) } : row
    }
    rows = rows.map(patch)
    if (!matched) {
      if (!parsed.data.name) throw new PresetError(`${label}: "${id}" matches no row of the preset and has no name to add it by`, 'PRESET_INVALID')
      rows.push(...parseRows([value], file, `row ${index + 1}`))
    }
  })
  return rows
}

/** The enabled plugin rows in load order (groups expanded); duplicate ids are refused. */
export function enabledRows(rows: readonly PresetRow[]): PresetRow[] {
  return pluginRows(rows, false)
}

/**
 * Every plugin row in load order (groups expanded), the disabled ones kept with `disabled: true`
 * (a disabled group's rows too), for a command that lists what a composition holds, turned off or
 * not (`dsh mcp list`). Duplicate ids are refused.
 */
export function everyPluginRow(rows: readonly PresetRow[]): PresetRow[] {
  return pluginRows(rows, true)
}

function pluginRows(rows: readonly PresetRow[], keepDisabled: boolean): PresetRow[] {
  const seen = new Set<string>()
  const out: PresetRow[] = []
  // `offBy`: the enclosing group turned off, when one is, and the file that did it (the outermost wins: it turns off everything inside).
  const visit = (list: readonly PresetRow[], offBy: { readonly group: string; readonly file: string } | undefined) => {
    for (const row of list) {
      if (seen.has(row.id)) throw new PresetError(`${row.file}: two rows have the id "${row.id}"; give one of them an explicit id`, 'PRESET_INVALID')
      seen.add(row.id)
      const disabledFile = offBy?.file ?? (row.disabled ? (row.disabledFile ?? row.file) : undefined)
      const disabled = disabledFile !== undefined
      if (disabled && !keepDisabled) continue
      if (row.children) visit(row.children, offBy ?? (disabledFile !== undefined ? { group: row.id, file: disabledFile } : undefined))
      else if (offBy) out.push({ ...row, disabled, disabledFile: offBy.file, disabledGroup: offBy.group })
      else out.push(!disabled || row.disabledFile === disabledFile ? row : { ...row, disabled, disabledFile })
    }
  }
  visit(rows, undefined)
  return out
}

function asList(config: unknown, label: string): unknown[] {
  if (!Array.isArray(config)) throw new PresetError(`${label}: a ${GROUP} row needs a list of rows as its config`, 'PRESET_INVALID')
  return config
}


/** `files` with every top-level key of `config` attributed to `file` (a config that is not an object replaces them all). */
function keysFrom(config: unknown, file: string, files: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!isRecord(config)) return {}
  const out: Record<string, string> = { ...files }
  for (const key of Object.keys(config)) out[key] = file
  return out
}

/** Objects merge key by key; anything else in `patch` replaces what was there. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isRecord(base) || !isRecord(patch)) return patch
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(patch)) out[key] = deepMerge(base[key], value)
  return out
}

import { z } from 'zod'
import { AskedAt } from './asked-at.ts'

const OneBased = z.number().int().min(1)

const ChangedLine = z.strictObject({
  /** One-based, in the file before the edit. */
  line: OneBased,
  before: z.string(),
  after: z.string(),
})

const FileEdit = z.strictObject({
  /** As shown: relative to the workspace. */
  path: z.string(),
  uri: z.string(),
  /** Text edits in this file. */
  edits: z.number().int().nonnegative(),
  /** The changed lines kept (the first `maxPreviewLines` over all files); `lineCount` counts them all. */
  lines: z.array(ChangedLine),
  lineCount: z.number().int().nonnegative(),
})

const FileOperation = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('create'), path: z.string() }),
  z.strictObject({ kind: z.literal('rename'), oldPath: z.string(), newPath: z.string() }),
  z.strictObject({ kind: z.literal('delete'), path: z.string() }),
])

const FileDiagnostics = z.strictObject({
  path: z.string(),
  /** Errors the server reports in the file after the change (see lsp_diagnostics). */
  errors: z.number().int().nonnegative(),
  /** The first few, one-based `line:col  message`. */
  first: z.array(z.string()),
  complete: z.boolean(),
})

/** The canonical value of one lsp_rename call: the preview, or what was written. */
export const RenameValue = z.strictObject({
  kind: z.literal('rename'),
  /** True when the edit was written to disk. */
  applied: z.boolean(),
  oldName: z.string(),
  newName: z.string(),
  /** False when the server was still indexing: uses may be missing (such an edit is not applied). */
  complete: z.boolean(),
  /** Where the rename was asked, one-based; with `symbol`, where it was found. */
  at: z.strictObject({ filePath: z.string(), line: OneBased, character: OneBased, symbol: z.string().exactOptional() }),
  /** Where the server was asked, when the provider moved `at` (a column past the end of its line is asked at the line's end). */
  askedAt: AskedAt.exactOptional(),
  /**
   * Files of the edit where `newName` already stands as a name (its first line there): the rename
   * may collide with it (tsserver and pyright do not check). Absent when none.
   */
  namedAlready: z.array(z.strictObject({ path: z.string(), line: OneBased })).exactOptional(),
  totalEdits: z.number().int().nonnegative(),
  files: z.array(FileEdit),
  /** File operations in the server's edit (applied only when the configuration allows them). */
  fileOperations: z.array(FileOperation),
  /** After applying: each changed file's errors, as far as `diagnosticsFiles` reaches. */
  diagnostics: z.array(FileDiagnostics).exactOptional(),
  /** Changed files whose diagnostics were not asked for, or could not be had (with why). */
  diagnosticsSkipped: z.array(z.strictObject({ path: z.string(), reason: z.string() })).exactOptional(),
})
export type RenameValue = z.infer<typeof RenameValue>

// The type-level test of the published declarations. `pnpm check:pack` compiles it in a project that
// installed the tarballs from npm (module and moduleResolution nodenext, strict, library declarations
// checked too). It stops compiling when a seam type goes missing, turns into `any`, or drifts from
// what docs/embedding.md promises: every `@ts-expect-error` below must still find its error.
import type { Context } from 'cordis'
import {
  HarnessError,
  ToolErrorCode,
  bootPreset,
  createUserMessage,
  type CatalogEntry,
  type CredentialService,
  type FileSystem,
  type Host,
  type PreStepDecision,
  type ReadinessService,
  type SessionEndReason,
  type SessionService,
  type SubprocessService,
  type ToolResult,
  type ToolRuntime,
} from 'dsh-core'
import Tools from 'dsh-core/tools'
import { LspError, type LspErrorCode, type LspService } from 'dsh-lsp'
import { McpError, type McpErrorCode } from 'dsh-mcp'
import { SkillError, type SkillErrorCode, type SkillRegistry } from 'dsh-skill'
import { WebError, type WebService } from 'dsh-web'
import { z } from 'zod'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(): void {}

// Importing a package is enough to see its service on the context (module augmentation of cordis).
expectType<Equal<Context['tools'], ToolRuntime>>()
expectType<Equal<Context['fs'], FileSystem>>()
expectType<Equal<Context['subprocess'], SubprocessService>>()
expectType<Equal<Context['sessions'], SessionService>>()
expectType<Equal<Context['credentials'], CredentialService>>()
expectType<Equal<Context['readiness'], ReadinessService>>()
expectType<Equal<Context['lsp'], LspService>>()
expectType<Equal<Context['web'], WebService>>()
expectType<Equal<Context['skills'], SkillRegistry>>()
// A plugin subpath default-exports its service class.
expectType<Equal<InstanceType<typeof Tools>, ToolRuntime>>()

export async function seams(ctx: Context): Promise<void> {
  // The catalog and the results are plain data with a discriminated union to narrow on.
  const catalog: readonly CatalogEntry[] = ctx.tools.catalog()
  const result: ToolResult = await ctx.tools.execute({ name: catalog[0]!.name, arguments: {} })
  if (result.isError) {
    const code: string = result.error.code
    void code
  } else {
    // @ts-expect-error a success carries no error
    void result.error
  }

  // A zod-typed tool: the body gets the parsed arguments' type.
  ctx.tools.register({ name: 'count', description: 'Counts characters.', input: z.strictObject({ text: z.string() }), execute: async (args) => args.text.length })
  // @ts-expect-error `text` is a string, not a number
  ctx.tools.register({ name: 'count', description: 'Counts characters.', input: z.strictObject({ text: z.string() }), execute: async (args) => args.text * 2 })

  // Sessions, the pre-step chain and its events.
  const session = ctx.sessions.create({ cwd: '.' })
  const decision: PreStepDecision = await ctx.sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])
  if (decision.kind === 'reject') void decision.reason
  ctx.on('session/end', (ended, reason) => {
    expectType<Equal<typeof reason, SessionEndReason>>()
    void ended.id
  })
  ctx.sessions.end(session)

  // A seam's service: results are a closed union on `kind`.
  const answer = await ctx.lsp.query({ operation: 'hover', filePath: 'src/main.ts', position: { line: 0, character: 0 }, workspaceRoot: session.cwd })
  if (answer.kind === 'hover') void answer.hover?.contents
  else void answer.locations.length
  // @ts-expect-error rename is not an operation of the seam
  await ctx.lsp.query({ operation: 'rename', filePath: 'src/main.ts', position: { line: 0, character: 0 }, workspaceRoot: session.cwd })
}

// Error classes carry their closed code sets; callers route on `code`.
expectType<Equal<LspError['code'], LspErrorCode>>()
expectType<Equal<SkillError['code'], SkillErrorCode>>()
expectType<Equal<McpError['code'], McpErrorCode>>()
export const errors: HarnessError[] = [
  new LspError('no server for .rs', 'LSP_UNAVAILABLE'),
  new SkillError('no such skill', 'SKILL_UNKNOWN'),
  new WebError('no key', 'WEB_PROVIDER_CREDENTIAL_MISSING'),
  new HarnessError('timed out', ToolErrorCode.TOOL_TIMEOUT),
]
// @ts-expect-error not an LSP code
new LspError('x', 'NOT_A_CODE')

// The preset runner.
export async function preset(): Promise<void> {
  const host: Host = await bootPreset({ preset: 'preset.yml' })
  await host.stop()
}

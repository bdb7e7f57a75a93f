import type { Context } from 'cordis'
import { z } from 'zod'

/** An example third-party plugin: one tool with a zod schema, a budget, and a custom rendering. */
export const name = 'example-echo'
export const inject = ['tools']

export const Config = (config: unknown) =>
  z
    .strictObject({
      /** The tool's budget; the runtime turns an overrun into TOOL_TIMEOUT. */
      timeoutMs: z.number().int().positive().default(1000),
    })
    .parse(config ?? {})

const Input = z.strictObject({
  text: z.string().describe('What to echo back.'),
  delayMs: z.number().int().nonnegative().max(60_000).optional().describe('Wait this long first (to try the timeout).'),
  fail: z.boolean().optional().describe('Throw a plain Error instead of answering.'),
})

export function apply(ctx: Context, config: ReturnType<typeof Config>) {
  ctx.tools.register({
    name: 'echo',
    description: 'Echoes the text back. An example tool.',
    input: Input,
    output: z.object({ text: z.string(), workspace: z.string().nullable() }),
    timeoutMs: config.timeoutMs,
    concurrencySafe: true,
    async execute(args, exec) {
      if (args.delayMs) await exec.lifetime.sleep(args.delayMs)
      if (args.fail) throw new Error('echo was asked to fail')
      return { text: args.text, workspace: exec.session?.cwd ?? null }
    },
    render: (_args, value) => value.text,
  })
}

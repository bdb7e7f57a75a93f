import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { configureZodFor } from '../src/zod-mode.ts'

// Issue 27 item 5: a one-shot command parses each schema about once, so zod's per-schema parser
// compilation is pure start-up cost there; `dsh serve` keeps it.

afterEach(() => {
  z.config({ jitless: undefined })
})

describe('zod mode per command', () => {
  it.each([['tools', '--json', '--preset', 'base'], ['status'], ['call', 'web_fetch', '{}'], ['context'], ['call', 'echo', 'serve']])('%s turns zod’s compiled parsers off', (...argv) => {
    configureZodFor(argv)
    expect(z.config().jitless).toBe(true)
    // Validation is unchanged: unknown keys, wrong types and defaults as before.
    const schema = z.strictObject({ n: z.number().int().default(3), s: z.string().optional() })
    expect(schema.parse({})).toEqual({ n: 3 })
    expect(schema.safeParse({ n: 1.5 }).success).toBe(false)
    expect(schema.safeParse({ x: 1 }).success).toBe(false)
  })

  it('serve keeps them', () => {
    configureZodFor(['serve', '--preset', 'base'])
    expect(z.config().jitless).toBeUndefined()
    configureZodFor(['--preset', 'base', 'serve'])
    expect(z.config().jitless).toBeUndefined()
  })
})

import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { TimeoutReason, type Lifetime, type ToolExecution } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27, items 1 and 3: a call runs on a Lifetime of its own (exec.lifetime); exec.signal is
// that lifetime's signal, made only when a body reads it, and the lifetime ends with the call.

let app: Context

useToolsApp((created) => (app = created))

describe('exec.lifetime', () => {
  it('is released when the call answers, and exec.signal belongs to it', async () => {
    let seen: ToolExecution | undefined
    app.tools.register({ name: 'quick', description: 'q', input: z.object({}), timeoutMs: 60_000, execute: async (_args, exec) => ((seen = exec), {}) })
    const result = await app.tools.execute({ name: 'quick', arguments: {} })
    expect(result.isError).toBe(false)
    expect(seen?.lifetime.active).toBe(false)
    expect(seen?.lifetime.aborted).toBe(false)
    expect(seen?.signal.aborted).toBe(false)
  })

  it('times out with the TOOL_TIMEOUT reason, which a child of it sees too', async () => {
    let child: Lifetime | undefined
    app.tools.register({
      name: 'slow',
      description: 's',
      input: z.object({}),
      timeoutMs: 20,
      execute: (_args, exec) => {
        child = exec.lifetime.child()
        return new Promise<never>((_, reject) => exec.lifetime.onAbort((reason) => reject(reason as Error)))
      },
    })
    const result = await app.tools.execute({ name: 'slow', arguments: {} })
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
    expect(child?.reason).toBeInstanceOf(TimeoutReason)
    expect((child?.reason as TimeoutReason).code).toBe('TOOL_TIMEOUT')
  })

  it('aborts with the caller signal and its reason', async () => {
    const caller = new AbortController()
    let reason: unknown
    app.tools.register({
      name: 'waits',
      description: 'w',
      input: z.object({}),
      execute: (_args, exec) =>
        new Promise<never>((_, reject) =>
          exec.signal.addEventListener('abort', () => {
            reason = exec.signal.reason
            reject(exec.signal.reason as Error)
          }),
        ),
    })
    const calling = app.tools.execute({ name: 'waits', arguments: {}, signal: caller.signal })
    await new Promise((resolve) => setImmediate(resolve))
    const why = new Error('user pressed escape')
    caller.abort(why)
    const result = await calling
    expect(result.isError && result.error.code).toBe('ABORTED')
    expect(reason).toBe(why)
  })
})

import { Context } from 'cordis'
import { beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type ApprovalRequest, type Approver, type ToolDefinition, type ToolResult } from '../src/index.ts'
import { deferred, harnessThrow, useToolsApp } from './helpers.ts'

// The approval gate: a definition's `approval` mode and the approvers registered with ctx.tools.approver.

let app: Context
let ran: string[]

useToolsApp((created) => (app = created))
beforeEach(() => {
  ran = []
})

function tool(overrides: Partial<ToolDefinition> & { name: string }): ToolDefinition {
  return {
    description: `the ${overrides.name} tool`,
    input: z.object({ path: z.string() }),
    surface: 'files',
    execute: async (args: { path: string }) => {
      ran.push(args.path)
      return { removed: args.path }
    },
    ...overrides,
  } as ToolDefinition
}

function call(name: string, extra: { signal?: AbortSignal; callId?: string } = {}): Promise<ToolResult> {
  return app.tools.execute({ name, arguments: { path: 'a.txt' }, ...extra })
}

function errorOf(result: ToolResult): { code: string; message: string } {
  expect(result.isError, JSON.stringify(result)).toBe(true)
  return result.isError ? { code: result.error.code, message: result.error.message } : { code: '', message: '' }
}

describe('approval modes', () => {
  it('auto (the default) runs without consulting any approver', async () => {
    const asked: string[] = []
    app.tools.approver((request) => {
      asked.push(request.name)
      return { approved: false }
    })
    app.tools.register(tool({ name: 'plain' }))
    app.tools.register(tool({ name: 'explicit', approval: 'auto' }))
    expect((await call('plain')).isError).toBe(false)
    expect((await call('explicit')).isError).toBe(false)
    expect(asked).toEqual([])
    expect(ran).toEqual(['a.txt', 'a.txt'])
  })

  it('deny answers TOOL_DENIED naming the configuration, even with an approver that says yes', async () => {
    app.tools.approver(() => ({ approved: true }))
    app.tools.register(tool({ name: 'rm', approval: 'deny' }))
    const error = errorOf(await call('rm'))
    expect(error.code).toBe('TOOL_DENIED')
    expect(error.message).toMatch(/rm is denied by configuration/)
    expect(ran).toEqual([])
  })

  it('prompt without an approver answers TOOL_APPROVAL_REQUIRED and says how to approve', async () => {
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const error = errorOf(await call('rm'))
    expect(error.code).toBe('TOOL_APPROVAL_REQUIRED')
    expect(error.message).toContain('ctx.tools.approver')
    expect(error.message).toContain('dsh call --yes')
    expect(ran).toEqual([])
  })

  it('refuses an unknown mode at registration with INVALID_TOOL', () => {
    const error = harnessThrow(() => app.tools.register(tool({ name: 'odd', approval: 'ask' as never })))
    expect(error.code).toBe('INVALID_TOOL')
    expect(error.message).toMatch(/odd.*approval must be one of auto, prompt, deny.*"ask"/)
    expect(app.tools.get('odd')).toBeUndefined()
  })

  it('checks arguments before asking: invalid arguments never reach the approver', async () => {
    const asked: string[] = []
    app.tools.approver((request) => (asked.push(request.name), { approved: true }))
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    expect(errorOf(await app.tools.execute({ name: 'rm', arguments: { path: 5 } })).code).toBe('INVALID_ARGS')
    expect(asked).toEqual([])
    expect((await call('rm')).isError).toBe(false)
    expect(asked).toEqual(['rm'])
  })
})

describe('approvers', () => {
  it('an approval runs the body; the approver sees the call id, name, frozen arguments, session, surface and a signal', async () => {
    let seen: ApprovalRequest | undefined
    app.tools.approver((request) => {
      seen = request
      return { approved: true }
    })
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const session = app.sessions.create({ cwd: '/tmp' })
    const result = await app.tools.execute({ name: 'rm', arguments: { path: 'a.txt' }, callId: 'call-7', session })
    expect(result).toMatchObject({ isError: false, value: { removed: 'a.txt' } })
    expect(ran).toEqual(['a.txt'])
    expect(seen).toMatchObject({ callId: 'call-7', name: 'rm', arguments: { path: 'a.txt' }, surface: 'files' })
    expect(seen?.session).toBe(session)
    expect(Object.isFrozen(seen?.arguments)).toBe(true)
    expect(seen?.signal).toBeInstanceOf(AbortSignal)
    expect(seen?.signal.aborted).toBe(false)
  })

  it('a refusal answers TOOL_DENIED with its reason and does not run the body', async () => {
    app.tools.approver(async () => ({ approved: false, reason: 'the user said no' }))
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const error = errorOf(await call('rm'))
    expect(error).toEqual({ code: 'TOOL_DENIED', message: 'rm was denied by its approver: the user said no' })
    expect(ran).toEqual([])
  })

  it('a refusal without a reason still says who refused', async () => {
    app.tools.approver(() => ({ approved: false }))
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    expect(errorOf(await call('rm'))).toEqual({ code: 'TOOL_DENIED', message: 'rm was denied by its approver' })
  })

  it('a throwing or rejecting approver denies the call with TOOL_DENIED naming the failure; the runtime keeps working', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
      const dispose = app.tools.approver(() => {
        throw new Error('approval UI crashed')
      })
      const thrown = errorOf(await call('rm'))
      expect(thrown.code).toBe('TOOL_DENIED')
      expect(thrown.message).toMatch(/approver failed \(approval UI crashed\)/)
      dispose()
      app.tools.approver(() => Promise.reject(new Error('socket closed')))
      expect(errorOf(await call('rm')).message).toMatch(/approver failed \(socket closed\)/)
      expect(ran).toEqual([])
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('a malformed answer denies the call', async () => {
    app.tools.approver((() => 'yes') as unknown as Approver)
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const error = errorOf(await call('rm'))
    expect(error.code).toBe('TOOL_DENIED')
    expect(error.message).toMatch(/answered something other than/)
  })

  it('a caller abort while the approver waits answers ABORTED_BEFORE_DISPATCH, and the approver saw its signal abort', async () => {
    const asked = deferred<ApprovalRequest>()
    app.tools.approver((request) => {
      asked.resolve(request)
      return new Promise(() => {})
    })
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const controller = new AbortController()
    const pending = call('rm', { signal: controller.signal })
    const request = await asked.promise
    controller.abort(new Error('user pressed stop'))
    expect(errorOf(await pending).code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(request.signal.aborted).toBe(true)
    expect(ran).toEqual([])
  })

  it('an approval that arrives after the caller aborted does not run the body', async () => {
    const controller = new AbortController()
    app.tools.approver(() => {
      controller.abort()
      return { approved: true }
    })
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    expect(errorOf(await call('rm', { signal: controller.signal })).code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(ran).toEqual([])
  })

  it('the wait for approval does not count against the tool timeout', async () => {
    let asked = 0
    app.tools.approver(() => {
      asked++
      return new Promise((resolve) => setTimeout(() => resolve({ approved: true }), 150))
    })
    app.tools.register(tool({ name: 'rm', approval: 'prompt', timeoutMs: 50 }))
    const result = await call('rm')
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(asked).toBe(1)
    expect(ran).toEqual(['a.txt'])
  })

  it('the most recently registered live approver answers; disposing it hands back to the previous one', async () => {
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    app.tools.approver(() => ({ approved: false, reason: 'first' }))
    const disposeSecond = app.tools.approver(() => ({ approved: false, reason: 'second' }))
    expect(errorOf(await call('rm')).message).toMatch(/: second$/)
    disposeSecond()
    expect(errorOf(await call('rm')).message).toMatch(/: first$/)
  })

  it('the disposer unregisters: with none left, prompt tools need approval again', async () => {
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const dispose = app.tools.approver(() => ({ approved: true }))
    expect((await call('rm')).isError).toBe(false)
    dispose()
    dispose()
    expect(errorOf(await call('rm')).code).toBe('TOOL_APPROVAL_REQUIRED')
  })

  it('is an effect on the caller plugin scope: unloading the plugin removes its approver', async () => {
    app.tools.register(tool({ name: 'rm', approval: 'prompt' }))
    const fork = app.plugin({
      name: 'approving-plugin',
      inject: ['tools'],
      apply: (ctx: Context) => void ctx.tools.approver(() => ({ approved: true })),
    })
    await app.events.flush()
    expect((await call('rm')).isError).toBe(false)
    fork.dispose()
    expect(errorOf(await call('rm')).code).toBe('TOOL_APPROVAL_REQUIRED')
  })

  it('refuses an approver that is not a function', () => {
    expect(harnessThrow(() => app.tools.approver('yes' as unknown as Approver)).code).toBe('INVALID_TOOL')
  })
})

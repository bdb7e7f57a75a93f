import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ToolDefinition, ToolExecution, ToolProgress } from '../src/index.ts'
import { capturedLogs, useToolsApp } from './helpers.ts'

// exec.progress: a body's progress reports reach the caller's onProgress while the call runs.

let app: Context

useToolsApp((created) => (app = created))

const warnings = capturedLogs()

function reporting(name: string, run: (exec: ToolExecution) => Promise<unknown>): ToolDefinition {
  return { name, description: `the ${name} tool`, input: z.object({}), execute: async (_args: unknown, exec: ToolExecution) => run(exec) } as ToolDefinition
}

describe('exec.progress', () => {
  it('forwards every report to the caller as a frozen copy, in order', async () => {
    app.tools.register(
      reporting('steps', async (exec) => {
        exec.progress({ progress: 1, total: 3, message: 'reading' })
        exec.progress({ progress: 2, total: 3 })
        exec.progress({ progress: 3 })
        return { done: true }
      }),
    )
    const seen: ToolProgress[] = []
    const result = await app.tools.execute({ name: 'steps', arguments: {}, onProgress: (update) => seen.push(update) })
    expect(result.isError).toBe(false)
    expect(seen).toEqual([{ progress: 1, total: 3, message: 'reading' }, { progress: 2, total: 3 }, { progress: 3 }])
    expect(seen.every((update) => Object.isFrozen(update))).toBe(true)
  })

  it('is a no-op without a listener, and drops reports that are not numbers', async () => {
    app.tools.register(
      reporting('odd', async (exec) => {
        exec.progress({ progress: Number.NaN })
        exec.progress({ progress: 'half' as unknown as number })
        exec.progress({ progress: 1, total: Number.POSITIVE_INFINITY, message: 7 as unknown as string })
        return {}
      }),
    )
    expect((await app.tools.execute({ name: 'odd', arguments: {} })).isError).toBe(false)
    const seen: ToolProgress[] = []
    await app.tools.execute({ name: 'odd', arguments: {}, onProgress: (update) => seen.push(update) })
    expect(seen).toEqual([{ progress: 1 }])
  })

  it('a listener that throws is logged and the call still succeeds', async () => {
    app.tools.register(
      reporting('noisy', async (exec) => {
        exec.progress({ progress: 1 })
        return { ok: true }
      }),
    )
    const result = await app.tools.execute({
      name: 'noisy',
      arguments: {},
      onProgress: () => {
        throw new Error('listener broke')
      },
    })
    expect(result.isError).toBe(false)
    expect(warnings.some((line) => line.includes('noisy: a progress listener failed: listener broke'))).toBe(true)
  })

  it('reports made after the call answered are dropped', async () => {
    let late: ToolExecution | undefined
    app.tools.register(
      reporting('leaky', async (exec) => {
        late = exec
        return {}
      }),
    )
    const seen: ToolProgress[] = []
    await app.tools.execute({ name: 'leaky', arguments: {}, onProgress: (update) => seen.push(update) })
    late!.progress({ progress: 1 })
    expect(seen).toEqual([])
  })
})

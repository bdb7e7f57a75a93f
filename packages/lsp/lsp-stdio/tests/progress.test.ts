// [PURE] The L2 progress tracker and the L3 crash budget, without any process.
import { LspError } from 'dsh-lsp'
import { describe, expect, it } from 'vitest'
import { CrashBudget } from '../src/crash-budget.ts'
import { ProgressTracker } from '../src/progress.ts'

describe('ProgressTracker', () => {
  it('is quiet with no work; create and begin make it busy and bump the epoch once per token', () => {
    const tracker = new ProgressTracker(10_000)
    expect(tracker.busy).toBe(false)
    expect(tracker.epoch).toBe(0)
    expect(tracker.title).toBeUndefined()

    tracker.created('t1')
    expect(tracker.busy).toBe(true)
    expect(tracker.epoch).toBe(1)
    tracker.created('t1')
    expect(tracker.epoch).toBe(1)
    // begin on a created token is the same work
    tracker.update('t1', { kind: 'begin', title: 'Loading project' })
    expect(tracker.epoch).toBe(1)
    expect(tracker.title).toBe('Loading project')
    // begin without a create (server-initiated progress) is new work
    tracker.update(7, { kind: 'begin', title: 'Indexing' })
    expect(tracker.epoch).toBe(2)
    expect(tracker.title).toBe('Indexing')
  })

  it('report and malformed values change nothing; end finishes the token', () => {
    const tracker = new ProgressTracker(10_000)
    tracker.update('t', { kind: 'begin', title: 'Work' })
    tracker.update('t', { kind: 'report', message: 'half', percentage: 50 })
    tracker.update('t', null)
    tracker.update('t', 'begin')
    tracker.update('other', { kind: 'end' })
    expect(tracker.busy).toBe(true)
    expect(tracker.epoch).toBe(1)
    tracker.update('t', { kind: 'end', message: 'done' })
    expect(tracker.busy).toBe(false)
    expect(tracker.title).toBeUndefined()
  })

  it('waitQuiet resolves true at once when quiet, and true once outstanding work ends', async () => {
    const tracker = new ProgressTracker(60_000)
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(true)
    tracker.created('a')
    tracker.update('b', { kind: 'begin' })
    let settled: boolean | undefined
    const waiting = tracker.waitQuiet(new AbortController().signal).then((quiet) => (settled = quiet))
    tracker.update('a', { kind: 'end' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(settled).toBeUndefined() // b is still outstanding
    tracker.update('b', { kind: 'end' })
    expect(await waiting).toBe(true)
  })

  it('waitQuiet gives up (false) once every outstanding token has used the budget', async () => {
    const tracker = new ProgressTracker(30)
    tracker.created('never-ends')
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(false)
    // an old token is not waited for again
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(false)
    expect(tracker.busy).toBe(true)
  })

  it('waitQuiet rejects with the abort reason when the signal aborts', async () => {
    const tracker = new ProgressTracker(60_000)
    tracker.created('t')
    const controller = new AbortController()
    const reason = new Error('caller cancelled')
    const waiting = tracker.waitQuiet(controller.signal)
    controller.abort(reason)
    await expect(waiting).rejects.toBe(reason)
  })
})

describe('CrashBudget', () => {
  const limits = { maxCrashes: 3, windowMs: 1_000, backoffMs: 100, maxBackoffMs: 300 }
  const crash = (n: number) => new LspError(`crash ${n}`, 'LSP_SERVER_EXITED')

  it('allows starts below the limit and blocks once maxCrashes fall inside the window', () => {
    const budget = new CrashBudget('ts', limits)
    budget.record(crash(1), 0)
    budget.record(crash(2), 10)
    expect(budget.blockedReason(20)).toBeUndefined()
    budget.record(crash(3), 20)
    const reason = budget.blockedReason(20)
    expect(reason).toContain('crashed 3 times within 1000 ms')
    expect(reason).toContain('last error: crash 3')
    expect(budget.blockedReason(119)).toBeDefined()
    expect(budget.blockedReason(120)).toBeUndefined()
    expect(budget.lastCrash?.message).toBe('crash 3')
  })

  it('forgets crashes that fell out of the window', () => {
    const budget = new CrashBudget('ts', limits)
    budget.record(crash(1), 0)
    budget.record(crash(2), 10)
    budget.record(crash(3), 1_500)
    expect(budget.blockedReason(1_500)).toBeUndefined()
  })

  it('doubles the backoff each time it trips, up to maxBackoffMs, and a success resets it', () => {
    const budget = new CrashBudget('ts', { ...limits, maxCrashes: 1 })
    budget.record(crash(1), 0)
    expect(budget.blockedReason(99)).toBeDefined()
    expect(budget.blockedReason(100)).toBeUndefined()
    budget.record(crash(2), 1_000)
    expect(budget.blockedReason(1_199)).toBeDefined()
    expect(budget.blockedReason(1_200)).toBeUndefined()
    budget.record(crash(3), 2_000)
    budget.record(crash(4), 3_000)
    expect(budget.blockedReason(3_299)).toBeDefined()
    expect(budget.blockedReason(3_300)).toBeUndefined()
    budget.succeeded()
    expect(budget.lastCrash).toBeUndefined()
    budget.record(crash(5), 5_000)
    expect(budget.blockedReason(5_100)).toBeUndefined()
  })

  it('assertMayStart throws LSP_SERVER_CRASHED carrying the last crash as cause', () => {
    const budget = new CrashBudget('ts', { ...limits, maxCrashes: 1, backoffMs: 60_000 })
    expect(() => budget.assertMayStart()).not.toThrow()
    const last = crash(1)
    budget.record(last)
    let error: unknown
    try {
      budget.assertMayStart()
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(LspError)
    expect((error as LspError).code).toBe('LSP_SERVER_CRASHED')
    expect((error as LspError).message).toMatch(/^ts: crashed 1 times/)
    expect((error as LspError).cause).toBe(last)
  })
})

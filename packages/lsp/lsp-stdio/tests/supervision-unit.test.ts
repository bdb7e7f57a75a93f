// [PURE] L3 supervision without any process: the one definition of a crash, the per-workspace
// crash budgets, and the budget's window and backoff.
import { LspError } from 'dsh-lsp'
import { describe, expect, it } from 'vitest'
import { CrashBudget, failureKind, Supervision } from '../src/supervision.ts'

const live = new AbortController().signal
const aborted = AbortSignal.abort(new Error('caller gave up'))

describe('failureKind: the one definition of a crash', () => {
  const exited = new LspError('fake: the language server exited with code 1', 'LSP_SERVER_EXITED')
  const own = { isTransportFailure: (error: unknown) => error === exited }
  const other = { isTransportFailure: () => false }

  it('the server\'s own transport failure is a replayable crash; an initialize timeout is a crash that is not replayed', () => {
    expect(failureKind(exited, own, live)).toBe('transport')
    expect(failureKind(new LspError('fake: no answer to initialize', 'LSP_SERVER_START_FAILED'), other, live)).toBe('start')
  })

  it('nothing counts when the caller aborted, and an exit that is not this server\'s transport failure does not count', () => {
    expect(failureKind(exited, own, aborted)).toBe('none')
    expect(failureKind(exited, other, live)).toBe('none')
  })

  it('an oversize message, disposal, error answers and plain errors are not crashes, even as the transport\'s own cause', () => {
    for (const code of ['LSP_MESSAGE_TOO_LARGE', 'LSP_DISPOSED', 'LSP_SERVER_ERROR', 'LSP_TIMEOUT', 'LSP_MALFORMED_RESPONSE'] as const) {
      const error = new LspError(code, code)
      expect(failureKind(error, { isTransportFailure: (e) => e === error }, live)).toBe('none')
    }
    expect(failureKind(new Error('boom'), { isTransportFailure: () => true }, live)).toBe('none')
  })
})

describe('Supervision', () => {
  const limits = { maxCrashes: 1, windowMs: 60_000, backoffMs: 60_000, maxBackoffMs: 60_000 }
  const crash = new LspError('fake: the language server exited with code 1', 'LSP_SERVER_EXITED')
  const owner = { isTransportFailure: (error: unknown) => error === crash }

  it('counts crashes per workspace; a success forgets that workspace\'s history', () => {
    const supervision = new Supervision('fake', limits)
    expect(supervision.settle('/a', crash, owner, live)).toBe('transport')
    expect(() => supervision.assertMayStart('/a')).toThrow(expect.objectContaining({ code: 'LSP_SERVER_CRASHED' }))
    expect(() => supervision.assertMayStart('/b')).not.toThrow()
    expect(supervision.blockedReason()).toContain('crashed 1 times')
    expect(supervision.lastCrash).toBe(crash)
    supervision.succeeded('/a')
    expect(() => supervision.assertMayStart('/a')).not.toThrow()
    expect(supervision.blockedReason()).toBeUndefined()
    expect(supervision.lastCrash).toBeUndefined()
  })

  it('what is not a crash is not counted', () => {
    const supervision = new Supervision('fake', limits)
    expect(supervision.settle('/a', crash, owner, aborted)).toBe('none')
    expect(supervision.settle('/a', new LspError('too big', 'LSP_MESSAGE_TOO_LARGE'), { isTransportFailure: () => true }, live)).toBe('none')
    expect(() => supervision.assertMayStart('/a')).not.toThrow()
    expect(supervision.lastCrash).toBeUndefined()
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
    expect(budget.lastCrash?.error.message).toBe('crash 3')
  })

  it('forgets crashes that fell out of the window', () => {
    const budget = new CrashBudget('ts', limits)
    budget.record(crash(1), 0)
    budget.record(crash(2), 10)
    budget.record(crash(3), 1_500)
    expect(budget.blockedReason(1_500)).toBeUndefined()
  })

  it('doubles the backoff each time it trips, up to maxBackoffMs', () => {
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

// [PURE] The L2 progress tracker, without any process. Its budgets are read from the clock, so the
// tests move a fake clock instead of sleeping: on a loaded machine a real 10 ms sleep can take 100.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ProgressTracker } from '../src/progress.ts'

/** Long enough never to matter, except in the tests about it. */
const LIFETIME = 600_000

beforeEach(() => {
  vi.useFakeTimers({ now: 0 })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('ProgressTracker', () => {
  it('is quiet with no work; create and begin make it busy and bump the epoch once per token', () => {
    const tracker = new ProgressTracker(10_000, LIFETIME)
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
    const tracker = new ProgressTracker(10_000, LIFETIME)
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
    const tracker = new ProgressTracker(60_000, LIFETIME)
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(true)
    tracker.created('a')
    tracker.update('b', { kind: 'begin' })
    let settled: boolean | undefined
    const waiting = tracker.waitQuiet(new AbortController().signal).then((quiet) => (settled = quiet))
    tracker.update('a', { kind: 'end' })
    await vi.advanceTimersByTimeAsync(20)
    expect(settled).toBeUndefined() // b is still outstanding
    tracker.update('b', { kind: 'end' })
    expect(await waiting).toBe(true)
  })

  it('waitQuiet gives up (false) once every outstanding token has used the budget', async () => {
    const tracker = new ProgressTracker(30, LIFETIME)
    tracker.created('never-ends')
    const waiting = tracker.waitQuiet(new AbortController().signal)
    await vi.advanceTimersByTimeAsync(29)
    let settled = false
    void waiting.then(() => (settled = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await waiting).toBe(false)
    // an old token is not waited for again
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(false)
    expect(tracker.busy).toBe(true)
  })

  it('waitQuiet rejects with the abort reason when the signal aborts', async () => {
    const tracker = new ProgressTracker(60_000, LIFETIME)
    tracker.created('t')
    const controller = new AbortController()
    const reason = new Error('caller cancelled')
    const waiting = tracker.waitQuiet(controller.signal)
    controller.abort(reason)
    await expect(waiting).rejects.toBe(reason)
  })

  it('a token older than its lifetime is treated as ended: quiet, and the expiry is kept for status', async () => {
    const tracker = new ProgressTracker(10, 60)
    tracker.update('stuck', { kind: 'begin', title: 'Indexing forever' })
    expect(tracker.busy).toBe(true)
    // past the wait budget but not the lifetime: the query answers incomplete
    await vi.advanceTimersByTimeAsync(20)
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(false)
    expect(tracker.busy).toBe(true)
    await vi.advanceTimersByTimeAsync(40)
    expect(tracker.busy).toBe(false)
    expect(tracker.title).toBeUndefined()
    expect(tracker.expired).toEqual({ title: 'Indexing forever', lifetimeMs: 60 })
    expect(await tracker.waitQuiet(new AbortController().signal)).toBe(true)
    // new work clears the note
    tracker.created('next')
    expect(tracker.expired).toBeUndefined()
  })

  it('a lifetime shorter than the wait budget ends the wait as quiet', async () => {
    const tracker = new ProgressTracker(60_000, 40)
    tracker.created('stuck')
    const waiting = tracker.waitQuiet(new AbortController().signal)
    await vi.advanceTimersByTimeAsync(40)
    expect(await waiting).toBe(true)
    expect(tracker.expired?.title).toBe('stuck')
  })
})

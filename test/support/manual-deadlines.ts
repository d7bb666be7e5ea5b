/**
 * A deadline clock the test moves by hand, for code that takes a DeadlineTimer (the judge
 * executor): no deadline fires until `pass()`, and after it every deadline, pending or new, has
 * passed. A test can so say "the healthy call was answered before any deadline" without timing it.
 */
import type { DeadlineTimer } from '../../src/judge/within-deadline.ts'

export type ManualDeadlines = {
  timer: DeadlineTimer
  /** From now on every deadline has passed: pending ones abort now, new ones at once. */
  pass(): void
  /** Whether pass() was called. */
  readonly passed: boolean
  /** Deadlines made so far (one per judge request that started). */
  readonly made: number
}

export function manualDeadlines(): ManualDeadlines {
  const pending = new Set<AbortController>()
  let passed = false
  let made = 0
  const expire = (c: AbortController, ms: number) => c.abort(new DOMException(`deadline of ${ms} ms passed`, 'TimeoutError'))
  const ms = new Map<AbortController, number>()
  return {
    timer(deadlineMs) {
      made += 1
      const c = new AbortController()
      if (passed) expire(c, deadlineMs)
      else pending.add(c), ms.set(c, deadlineMs)
      return c.signal
    },
    pass() {
      passed = true
      for (const c of pending) expire(c, ms.get(c)!)
      pending.clear()
    },
    get passed() {
      return passed
    },
    get made() {
      return made
    },
  }
}

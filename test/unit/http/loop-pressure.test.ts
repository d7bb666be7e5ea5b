/**
 * The busy share over the last window, from samples the test chooses: a loop busy the whole window
 * reads 1, an idle one 0; the share slides with the window; before a whole window has passed, the
 * missing part counts as idle, so a just-started server is never busy by this measure.
 */
import { describe, expect, it } from 'vitest'
import { LoopActivityWindow } from '../../../src/http/loop-pressure.ts'

describe('LoopActivityWindow', () => {
  /** A loop sampled every 10 ms from t=0, active for `busy(t)` of each 10 ms step. */
  function run(until: number, busy: (t: number) => number): LoopActivityWindow {
    const w = new LoopActivityWindow(1_000, 10, { atMs: 0, activeMs: 0 })
    let active = 0
    for (let t = 10; t <= until; t += 10) {
      active += busy(t) * 10
      w.sample({ atMs: t, activeMs: active })
    }
    return w
  }

  it('reads a saturated window as 1 and an idle one as 0', () => {
    expect(run(3_000, () => 1).busyShare({ atMs: 3_000, activeMs: 3_000 })).toBe(1)
    expect(run(3_000, () => 0).busyShare({ atMs: 3_000, activeMs: 0 })).toBe(0)
  })

  it('covers only the last window: an old busy stretch no longer counts', () => {
    // Busy for the first two seconds, idle for the third.
    const w = run(3_000, (t) => (t <= 2_000 ? 1 : 0))
    expect(w.busyShare({ atMs: 3_000, activeMs: 2_000 })).toBe(0)
    // Half a second into the idle stretch, half the window is still the busy one.
    expect(run(2_500, (t) => (t <= 2_000 ? 1 : 0)).busyShare({ atMs: 2_500, activeMs: 2_000 })).toBeCloseTo(0.5, 2)
  })

  it('counts the turn in progress: the active time up to now, not only up to the last sample', () => {
    const w = run(2_000, () => 0)
    // No sample for 950 ms because one turn has run that long, all of it active.
    expect(w.busyShare({ atMs: 2_950, activeMs: 950 })).toBeCloseTo(0.95, 2)
  })

  it('counts the part of the first window before the first sample as idle: start-up is never busy', () => {
    const w = new LoopActivityWindow(1_000, 10, { atMs: 0, activeMs: 0 })
    // The first turns compile the code: 600 ms of work right after start.
    expect(w.busyShare({ atMs: 600, activeMs: 600 })).toBeCloseTo(0.6, 5)
  })

  it('keeps a bounded ring however long it runs', () => {
    const w = run(60_000, (t) => (t % 20 === 0 ? 1 : 0))
    expect(w.busyShare({ atMs: 60_000, activeMs: 30_000 })).toBeCloseTo(0.5, 2)
    expect(() => new LoopActivityWindow(0, 10, { atMs: 0, activeMs: 0 })).toThrow(RangeError)
  })
})

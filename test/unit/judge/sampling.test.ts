import { describe, expect, it } from 'vitest'
import { sessionFraction, shouldJudgeSession } from '../../../src/judge/sampling.ts'

describe('sessionFraction', () => {
  it('is a fixed point in [0, 1) per id, the same on every call', () => {
    for (const id of ['', 'a', 'foobar', 'ünïcødé-session']) {
      const f = sessionFraction(id)
      expect(f).toBeGreaterThanOrEqual(0)
      expect(f).toBeLessThan(1)
      expect(sessionFraction(id)).toBe(f)
    }
    // Pinned so a change of hash (which moves sessions in and out of the sample) is seen.
    expect(sessionFraction('session-42').toFixed(6)).toBe('0.778580')
  })
})

describe('shouldJudgeSession', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => `session-${i}`)

  it('samples close to the requested rate', () => {
    for (const rate of [0.05, 0.3, 0.8]) {
      const judged = ids.filter((id) => shouldJudgeSession(id, rate)).length / ids.length
      expect(Math.abs(judged - rate)).toBeLessThan(0.02)
    }
  })

  it('is stable and nested: a session judged at a rate is judged at every higher rate', () => {
    for (const id of ids.slice(0, 2000)) {
      expect(shouldJudgeSession(id, 0.4)).toBe(shouldJudgeSession(id, 0.4))
      if (shouldJudgeSession(id, 0.2)) expect(shouldJudgeSession(id, 0.6)).toBe(true)
    }
  })

  it('judges nothing at 0 and everything at 1, and maps ids into [0, 1)', () => {
    expect(ids.some((id) => shouldJudgeSession(id, 0))).toBe(false)
    expect(ids.every((id) => shouldJudgeSession(id, 1))).toBe(true)
    for (const id of ids.slice(0, 500)) {
      const f = sessionFraction(id)
      expect(f >= 0 && f < 1).toBe(true)
    }
    expect(shouldJudgeSession('ünïcødé-session', 0.5)).toBe(sessionFraction('ünïcødé-session') < 0.5)
  })
})

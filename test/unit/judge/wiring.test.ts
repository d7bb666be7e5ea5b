/** Covers: src/config/judge-wiring.ts. */
// The judge limits read from the environment: defaults, overrides and clear errors naming the variable.
import { describe, expect, it } from 'vitest'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_CONCURRENCY_PER_SESSION, DEFAULT_JUDGE_DEADLINE_MS } from '../../../src/judge/executor.ts'

const KEY = { GEMINI_API_KEY: 'k' }

describe('judgeWiringFromEnv: judge limits', () => {
  it('defaults: 32 calls per process, 2 per session, a 90 s deadline', () => {
    expect([DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_CONCURRENCY_PER_SESSION, DEFAULT_JUDGE_DEADLINE_MS]).toEqual([32, 2, 90_000])
    const wiring = judgeWiringFromEnv(KEY)
    expect(wiring.ok && wiring.notes).toContain('judge calls: 32 at once, 2 per session, 90000 ms deadline each')
  })

  it('overrides from the environment', () => {
    const wiring = judgeWiringFromEnv({
      ...KEY,
      EVALSTREAM_JUDGE_CONCURRENCY: '4',
      EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION: '9',
      EVALSTREAM_JUDGE_DEADLINE_MS: '1500',
    })
    // A per-session limit above the process limit is the process limit.
    expect(wiring.ok && wiring.notes).toContain('judge calls: 4 at once, 4 per session, 1500 ms deadline each')
  })

  it.each([
    ['EVALSTREAM_JUDGE_CONCURRENCY', '0'],
    ['EVALSTREAM_JUDGE_CONCURRENCY', '2.5'],
    ['EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION', '-1'],
    ['EVALSTREAM_JUDGE_CONCURRENCY_PER_SESSION', 'many'],
    ['EVALSTREAM_JUDGE_DEADLINE_MS', '0'],
    ['EVALSTREAM_JUDGE_DEADLINE_MS', '1e400'],
  ])('%s=%s is refused, naming the variable', (name, value) => {
    const wiring = judgeWiringFromEnv({ ...KEY, [name]: value })
    expect(wiring).toEqual({ ok: false, error: expect.stringContaining(`${name} must be`) })
  })

  it('without a judge there is nothing to release', () => {
    const wiring = judgeWiringFromEnv({})
    expect(wiring.ok && wiring.value.judging('s')).toEqual({})
  })
})

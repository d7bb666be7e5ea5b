/**
 * The OTLP receiver's limits from the environment, read on config/env.ts's one rule for whole numbers.
 * Covers: src/config/otlp.ts, src/otlp/limits.ts.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_ASSEMBLER_LIMITS, DEFAULT_OTLP_LIMITS, OTLP_LIMIT_ENV } from '../../../src/otlp/index.ts'
import { otlpLimitsFromEnv } from '../../../src/config/otlp.ts'

const EVENT = { maxJsonDepth: 32, maxStringLength: 5000 }

describe('OTLP limits from the environment', () => {
  it('keeps the defaults and takes the event JSON bounds', () => {
    expect(otlpLimitsFromEnv({}, EVENT)).toEqual({
      ok: true,
      value: { otlp: { ...DEFAULT_OTLP_LIMITS, ...EVENT }, assembler: DEFAULT_ASSEMBLER_LIMITS },
    })
  })

  it('takes only the JSON bounds from the event limits it is given', () => {
    const eventLimits = { ...EVENT, maxRequestBytes: 7, maxEventBytes: 7 }
    const read = otlpLimitsFromEnv({}, eventLimits)
    expect(read.ok && read.value.otlp).toEqual({ ...DEFAULT_OTLP_LIMITS, ...EVENT })
  })

  it('reads every variable into its limit', () => {
    const env = Object.fromEntries(Object.values(OTLP_LIMIT_ENV).map((name, i) => [name, String(i + 2)]))
    const read = otlpLimitsFromEnv(env, EVENT)
    if (!read.ok) throw new Error(read.error)
    const all: Record<string, number> = { ...read.value.otlp, ...read.value.assembler }
    Object.keys(OTLP_LIMIT_ENV).forEach((key, i) => expect([key, all[key]]).toEqual([key, i + 2]))
  })

  it("refuses a value that is not a positive whole number, or a depth above its ceiling, naming the variable (config/env.ts's rule)", () => {
    expect(otlpLimitsFromEnv({ EVALSTREAM_OTLP_MAX_ATTRIBUTES: '-3' }, EVENT)).toEqual({
      ok: false,
      error: "EVALSTREAM_OTLP_MAX_ATTRIBUTES must be a whole number >= 1, not '-3'",
    })
    expect(otlpLimitsFromEnv({ EVALSTREAM_OTLP_MAX_VALUE_DEPTH: '5000' }, EVENT)).toEqual({
      ok: false,
      error: "EVALSTREAM_OTLP_MAX_VALUE_DEPTH must be a whole number from 1 to 1000, not '5000'",
    })
    expect(otlpLimitsFromEnv({ EVALSTREAM_OTLP_MAX_OPEN_TRACES: '1e3' }, EVENT)).toEqual({
      ok: false,
      error: "EVALSTREAM_OTLP_MAX_OPEN_TRACES must be a whole number >= 1, not '1e3'",
    })
    const grouped = otlpLimitsFromEnv({ EVALSTREAM_OTLP_MAX_REQUEST_BYTES: '16_000_000' }, EVENT)
    expect(grouped.ok && grouped.value.otlp.maxRequestBytes).toBe(16_000_000)
  })
})

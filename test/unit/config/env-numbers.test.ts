/**
 * One rule for every whole-number setting: digits, optionally grouped with underscores, within the
 * variable's range. The same value is accepted or refused whichever reader reads it.
 * Covers: src/config/env.ts and the readers built on it.
 */
import { describe, expect, it } from 'vitest'
import { wholeNumber } from '../../../src/config/env.ts'
import { judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { limitsFromEnv } from '../../../src/config/ingest-limits.ts'
import { otelConfigFromEnv } from '../../../src/config/otel.ts'
import { proxySettingsFromEnv } from '../../../src/config/proxy.ts'
import { indexLimitsFromEnv } from '../../../src/config/results-index.ts'
import { sessionLimitsFromEnv } from '../../../src/config/session-limits.ts'
import { webhookSettingsFromEnv } from '../../../src/config/webhooks.ts'

/** One variable of each reader, and how to get the number it read. */
const READERS: Array<[string, (value: string) => { ok: boolean; read?: unknown }]> = [
  ['EVALSTREAM_MAX_REQUEST_BYTES', (v) => pick(limitsFromEnv({ EVALSTREAM_MAX_REQUEST_BYTES: v }), (x) => x.maxRequestBytes)],
  ['EVALSTREAM_MAX_SESSIONS', (v) => pick(sessionLimitsFromEnv({ EVALSTREAM_MAX_SESSIONS: v }), (x) => x.maxSessions)],
  ['EVALSTREAM_INDEX_MAX_ROWS', (v) => pick(indexLimitsFromEnv({ EVALSTREAM_INDEX_MAX_ROWS: v }), (x) => x.maxRows)],
  ['EVALSTREAM_AGENT_IDLE_TIMEOUT_MS', (v) => pick(proxySettingsFromEnv({ EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: v }), (x) => x.idleTimeoutMs)],
  ['EVALSTREAM_WEBHOOK_MAX_QUEUE', (v) => pick(webhookSettingsFromEnv({ EVALSTREAM_WEBHOOK_MAX_QUEUE: v }), (x) => x.maxQueue)],
  [
    'OTEL_BLRP_MAX_QUEUE_SIZE',
    (v) => pick(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_BLRP_MAX_QUEUE_SIZE: v }), (x) => x?.maxQueue),
  ],
  ['EVALSTREAM_JUDGE_DEADLINE_MS', (v) => ({ ok: judgeWiringFromEnv({ EVALSTREAM_JUDGE_DEADLINE_MS: v }).ok })],
]

function pick<T>(read: { ok: true; value: T } | { ok: false; error: string }, get: (value: T) => unknown) {
  return read.ok ? { ok: true, read: get(read.value) } : { ok: false, read: read.error }
}

describe('whole-number settings: one rule', () => {
  it('reads digits, with or without underscore groups, alike in every reader', () => {
    for (const [name, read] of READERS) {
      for (const [text, value] of [['16000000', 16_000_000], ['16_000_000', 16_000_000], [' 250 ', 250]] as const) {
        const got = read(text)
        expect(got.ok, `${name}=${text}`).toBe(true)
        if (got.read !== undefined) expect(got.read, `${name}=${text}`).toBe(value)
      }
    }
  })

  it('refuses everything else in every reader, naming the variable', () => {
    for (const [name, read] of READERS) {
      for (const bad of ['0', '-5', '1.5', '1e3', '0x10', '10MB', '_100', '1__0', '100_', 'soon']) {
        const got = read(bad)
        expect(got.ok, `${name}=${bad}`).toBe(false)
        // Time limits that feed a timer name their ceiling (2^31-1 ms) too.
        if (got.read !== undefined) {
          expect(got.read).toMatch(
            new RegExp(`^${name} must be a whole number (>= 1|from 1 to 2147483647), not '${bad.replace('.', '\\.')}'$`),
          )
        }
      }
    }
  })

  it('keeps the default when unset or empty, and honours a range', () => {
    expect(wholeNumber({}, 'N', 7)).toEqual({ ok: true, value: 7 })
    expect(wholeNumber({ N: '  ' }, 'N', 7)).toEqual({ ok: true, value: 7 })
    expect(wholeNumber({ N: '0' }, 'N', undefined, { min: 0 })).toEqual({ ok: true, value: 0 })
    expect(wholeNumber({ N: '1_001' }, 'N', 7, { max: 1000 })).toEqual({
      ok: false,
      error: "N must be a whole number from 1 to 1000, not '1_001'",
    })
    expect(wholeNumber({ N: '9007199254740993' }, 'N', 7).ok).toBe(false)
  })
})

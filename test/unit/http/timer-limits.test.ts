/**
 * Every time limit that ends up in a timer (setTimeout, AbortSignal.timeout) is held to 2^31-1 ms:
 * a longer one would be taken as 1 ms and fire at once. Past it the start is refused naming the
 * variable, and a run request's `session_timeout_ms` is a 422 naming the field.
 * Covers: src/ingest/timer-ms.ts and the settings it bounds.
 */
import { describe, expect, it } from 'vitest'
import { MAX_TIMER_MS } from '../../../src/ingest/timer-ms.ts'
import { otelConfigFromEnv } from '../../../src/config/otel.ts'
import { proxySettingsFromEnv } from '../../../src/config/proxy.ts'
import { webhookSettingsFromEnv } from '../../../src/config/webhooks.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'
import { twoTenantApp } from '../support/two-tenants.ts'

const TOO_LONG = String(2 ** 31)

describe('timer limits', () => {
  it.each(
    [
      ['EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS', proxySettingsFromEnv],
      ['EVALSTREAM_AGENT_IDLE_TIMEOUT_MS', proxySettingsFromEnv],
      ['EVALSTREAM_WEBHOOK_TIMEOUT_MS', webhookSettingsFromEnv],
      [
        'OTEL_EXPORTER_OTLP_TIMEOUT',
        (env: Record<string, string>) => otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.invalid', ...env }),
      ],
    ] as const,
  )('%s above 2^31-1 stops the start naming it; 2^31-1 itself is accepted', (name, read) => {
    const refused = (read as (env: Record<string, string>) => { ok: boolean; error?: string })({ [name]: TOO_LONG })
    expect(refused.ok).toBe(false)
    expect(refused.error).toBe(`${name} must be a whole number from 1 to ${MAX_TIMER_MS}, not '${TOO_LONG}'`)
    expect((read as (env: Record<string, string>) => { ok: boolean })({ [name]: String(MAX_TIMER_MS) }).ok).toBe(true)
  })

  it.each(['session_timeout_ms', 'turn_timeout_ms'])(
    'a run whose %s is above 2^31-1 is refused (422), not started with a ~1 ms timer',
    async (field) => {
      const { call } = twoTenantApp({}, {
        deps: { agentUrl: 'http://agent.invalid', fetch: (() => Promise.reject(new Error('not called'))) as typeof fetch },
      })
      const res = await call('acme', 'POST', '/v1/runs', {
        app_name: 'weather',
        eval_set: { eval_set_id: 's', eval_cases: [] },
        eval_config: CONFIG,
        [field]: 2 ** 31,
      })
      expect(res.status).toBe(422)
      expect(((await res.json()) as { detail: string }).detail).toMatch(/must be a positive number of milliseconds up to 2147483647/)
    },
  )
})

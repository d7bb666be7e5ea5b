/**
 * OpenTelemetry export on Node, in process: a session's decided results reach a loopback OTLP/HTTP
 * receiver as `gen_ai.evaluation.result` log records, with the resource, headers and attributes the
 * OTEL_* variables set; a failing receiver gets the batch again.
 * Covers: src/export/otel-exporter.ts, src/export/otel-record.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { DIVERGING_CASE, EXPORTED_NAMES, MATCHING_CASE } from '../../support/weather-fixtures.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { runSession } from './otel-session.ts'
import { logRecords, type Receiver, startReceiver } from '../../support/otlp-receiver.ts'

const receivers: Receiver[] = []
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close()
})

function host(env: Env) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, {
    store: (limits, feed) => memorySessionStore({ limits, feed }),
    exporters: { otelBackoffMs: 5, backoffMs: 5 },
  })
  if (!setup.ok) throw new Error(setup.error)
  return { app: createApp(setup.deps), deps: setup.deps }
}

/** Results of one session here: 2 configured criteria + 4 efficiency metrics + the case result. */
const RECORDS_PER_SESSION = 7

describe('OpenTelemetry export (Node, in process)', () => {
  it('sends every decided result as a gen_ai.evaluation.result event with the configured resource and headers', async () => {
    const otlp = await startReceiver()
    receivers.push(otlp)
    const { app } = host({
      OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k%201,x-team=evals',
      OTEL_SERVICE_NAME: 'evals-prod',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,service.name=ignored',
    })
    await runSession(app, 'otel-1', DIVERGING_CASE)
    // Two configured criteria, ADK's four always-reported efficiency metrics, and the case result.
    const requests = await otlp.waitFor((rs) => logRecords(rs).length >= RECORDS_PER_SESSION)
    expect(requests.every((r) => r.path === '/v1/logs' && r.method === 'POST')).toBe(true)
    expect(requests[0]!.headers['content-type']).toBe('application/json')
    expect(requests[0]!.headers['x-api-key']).toBe('k 1')
    expect(requests[0]!.headers['x-team']).toBe('evals')
    const records = logRecords(requests)
    expect(records).toHaveLength(RECORDS_PER_SESSION)
    for (const r of records) {
      expect(r.record.eventName).toBe('gen_ai.evaluation.result')
      expect(r.resource['service.name']).toBe('evals-prod')
      expect(r.resource['deployment.environment']).toBe('test')
      expect(r.scope).toBe('evalstream')
      expect(r.attributes['evalstream.session.id']).toBe('otel-1')
      expect(r.attributes['evalstream.app.name']).toBe('weather')
    }
    const byName = Object.fromEntries(records.map((r) => [r.attributes['gen_ai.evaluation.name'], r]))
    const trajectory = byName.tool_trajectory_avg_score!
    expect(trajectory.attributes['gen_ai.evaluation.score.value']).toBe(0)
    expect(trajectory.attributes['gen_ai.evaluation.score.label']).toBe('failed')
    expect(trajectory.attributes['gen_ai.evaluation.explanation']).toBe('score 0 < threshold 1')
    expect(trajectory.attributes['evalstream.invocation.id']).toEqual(expect.any(String))
    expect(trajectory.attributes['evalstream.invocation.index']).toBe('0')
    expect(trajectory.record.severityText).toBe('WARN')
    expect(byName.response_match_score!.attributes['gen_ai.evaluation.score.label']).toBe('passed')
    expect(byName.response_match_score!.record.severityText).toBe('INFO')
    const tokens = byName.token_usage_v1!
    expect(tokens.attributes['gen_ai.evaluation.score.label']).toBe('informational')
    expect(tokens.record.severityText).toBe('INFO')
    const kase = byName['evalstream.case']!
    expect(kase.attributes['gen_ai.evaluation.score.label']).toBe('failed')
    expect(kase.attributes['gen_ai.evaluation.score.value']).toBeUndefined()
    expect(kase.attributes['gen_ai.evaluation.explanation']).toMatch(
      /tool_trajectory_avg_score: FAILED \(0 < 1\); response_match_score: PASSED/,
    )
    expect(kase.attributes['evalstream.eval.id']).toBe('weather')
    expect(Number(BigInt(String(kase.record.timeUnixNano)) / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('sends the batch again after a 503 and a 429, and not again once delivered', async () => {
    const otlp = await startReceiver((_, n) => (n === 0 ? 503 : n === 1 ? 429 : 200))
    receivers.push(otlp)
    const { app, deps } = host({ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${otlp.url}/custom/logs` })
    await runSession(app, 'otel-retry', MATCHING_CASE)
    await deps.exporters!.idle()
    expect(otlp.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/custom/logs']))
    const delivered = logRecords(otlp.requests.slice(2))
    expect(delivered.map((r) => r.attributes['gen_ai.evaluation.name']).sort()).toEqual(EXPORTED_NAMES)
    // The failed attempts carried the same records as the ones that got through.
    expect(logRecords(otlp.requests.slice(0, 2)).length).toBeGreaterThan(0)
    expect(deps.exporters!.stats().otel).toMatchObject({ sent: RECORDS_PER_SESSION, failed: 0, dropped: 0 })
    expect(deps.exporters!.stats().otel!.retries).toBeGreaterThanOrEqual(2)
  })

  it('exports nothing when no endpoint is set, and refuses grpc', () => {
    const { deps } = host({})
    expect(deps.exporters!.stats().otel).toBeUndefined()
    const grpc = depsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, {
      store: memorySessionStore(),
    })
    expect(grpc.ok || grpc.error).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc/)
  })
})

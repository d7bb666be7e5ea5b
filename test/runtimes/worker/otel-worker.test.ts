/**
 * OpenTelemetry events and webhooks from the Worker (workerd via Miniflare): the Durable Object
 * that scores the session exports its decided results to loopback receivers, after the response
 * (waitUntil), with the same records and signatures as on Node.
 * Covers: src/export/otel-exporter.ts, src/export/webhook-sender.ts, src/export/webhook-target.ts, worker/session-object.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../../src/export/webhook-signature.ts'
import { CONFIG, DIVERGING_CASE, EXPORTED_NAMES, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { logRecords, type Receiver, startReceiver } from '../../support/otlp-receiver.ts'
import { type Running, startWorker } from '../../support/runtimes.ts'

const SECRET = 'worker-webhook-secret-0123'

describe('OpenTelemetry and webhooks on Workers', () => {
  let otlp: Receiver
  let hook: Receiver
  let worker: Running
  beforeAll(async () => {
    otlp = await startReceiver()
    // The first POST fails: the Durable Object retries it after the response went out.
    hook = await startReceiver((_, n) => (n === 0 ? 500 : 200))
    worker = await startWorker({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'evals-on-workers',
      OTEL_RESOURCE_ATTRIBUTES: 'cloud.provider=cloudflare',
      EVALSTREAM_WEBHOOK_URL: `${hook.url}/hook`,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'status:FAILED,type:case',
    })
  })
  afterAll(async () => {
    await worker?.stop()
    await otlp?.close()
    await hook?.close()
  })

  it('exports gen_ai.evaluation.result events and a signed, retried webhook for a session', async () => {
    const url = (p: string) => `${worker.baseUrl}${p}`
    const created = await fetch(url('/v1/sessions'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'w-otel', eval_config: CONFIG, eval_case: DIVERGING_CASE }),
    })
    expect(created.status).toBe(201)
    const events = await fetch(url('/v1/sessions/w-otel/events'), {
      method: 'POST',
      headers: { 'content-type': 'text/event-stream' },
      body: WEATHER_SSE,
    })
    expect(events.ok).toBe(true)
    expect((await fetch(url('/v1/sessions/w-otel/end'), { method: 'POST' })).status).toBe(200)

    // Two configured criteria, ADK's four always-reported efficiency metrics, and the case result.
    const records = logRecords(await otlp.waitFor((rs) => logRecords(rs).length >= 7))
    expect(records).toHaveLength(7)
    expect(records.map((r) => r.attributes['gen_ai.evaluation.name']).sort()).toEqual(EXPORTED_NAMES)
    for (const r of records) {
      expect(r.record.eventName).toBe('gen_ai.evaluation.result')
      expect(r.resource).toMatchObject({ 'service.name': 'evals-on-workers', 'cloud.provider': 'cloudflare' })
      expect(r.attributes['evalstream.session.id']).toBe('w-otel')
    }
    const trajectory = records.find((r) => r.attributes['gen_ai.evaluation.name'] === 'tool_trajectory_avg_score')!
    expect(trajectory.attributes).toMatchObject({ 'gen_ai.evaluation.score.value': 0, 'gen_ai.evaluation.score.label': 'failed' })

    const [failed, delivered] = await hook.waitFor((rs) => rs.length >= 2)
    expect(failed!.headers['x-evalstream-delivery']).toBe('w-otel/case')
    expect(delivered!.headers['x-evalstream-delivery']).toBe('w-otel/case')
    expect(delivered!.headers['x-evalstream-attempt']).toBe('2')
    expect(
      await verifyWebhook(
        SECRET,
        delivered!.headers['x-evalstream-timestamp']!,
        delivered!.headers['x-evalstream-signature']!,
        delivered!.body,
      ),
    ).toEqual({ ok: true })
  })

  it('refuses a session webhook aimed at loopback, metadata or another special-purpose address', async () => {
    const refused: Array<[string, RegExp]> = [
      [`${hook.url}/x`, /127\.0\.0\.1 is a loopback address/],
      ['http://[::ffff:a9fe:a9fe]/x', /link-local address .*IPv4-mapped carrying 169\.254\.169\.254/],
      ['http://[5f00::1]/x', /special-purpose address \(segmentRouting\)/],
    ]
    for (const [url, why] of refused) {
      const res = await fetch(`${worker.baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eval_config: CONFIG, webhook: { url, secret: SECRET } }),
      })
      expect(res.status, url).toBe(400)
      expect(((await res.json()) as { detail: string }).detail, url).toMatch(why)
    }
  })
})

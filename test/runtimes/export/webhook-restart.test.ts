/**
 * Exporters across a restart, and on Deno. The Node server (`src/adapter/node/server.ts`, a child
 * process) keeps sessions in EVALSTREAM_DB; after a restart the session is rebuilt by replay, and
 * neither the webhook receiver nor the OTLP receiver gets any result a second time. The Deno
 * adapter exports the same events and webhooks.
 * Covers: src/export/webhook-sender.ts, src/export/otel-exporter.ts across a restart (src/adapter/node/server.ts, src/adapter/deno/server.ts).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../../src/export/webhook-signature.ts'
import { CONFIG, EFFICIENCY_METRICS, EXPORTED_NAMES, TWO_TURN_CASE, WEATHER_EVENTS, WEATHER_SSE } from '../../support/weather-fixtures.ts'
import { logRecords, type Receiver, startReceiver } from '../../support/otlp-receiver.ts'
import { type Running, startDeno } from '../../support/runtimes.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'

const SECRET = 'restart-webhook-secret-01'
const CASE = TWO_TURN_CASE
const turn = (invocationId: string) => JSON.stringify(WEATHER_EVENTS.map((e) => ({ ...e, invocationId })))

const startNodeServer = (env: Record<string, string>) => spawnServer('node', { env })
/** SIGTERM: the server flushes its exporters and exits. */
const stop = (server: ServerProcess) => server.stop()

const post = (base: string, path: string, body: string, type = 'application/json') =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': type }, body })

describe('exporters after a restart on the same EVALSTREAM_DB (Node)', () => {
  let hook: Receiver
  let otlp: Receiver
  let server: ServerProcess | undefined
  beforeAll(async () => {
    hook = await startReceiver()
    otlp = await startReceiver()
  })
  afterAll(async () => {
    if (server) await stop(server)
    await hook?.close()
    await otlp?.close()
  })

  it('sends each result once: nothing again when the session is replayed', async () => {
    const env = {
      EVALSTREAM_DB: join(mkdtempSync(join(tmpdir(), 'evalstream-hooks-')), 'evalstream.db'),
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    }
    server = await startNodeServer(env)
    expect(
      (await post(server.baseUrl, '/v1/sessions', JSON.stringify({ session_id: 'restarted', eval_config: CONFIG, eval_case: CASE })))
        .status,
    ).toBe(201)
    expect((await post(server.baseUrl, '/v1/sessions/restarted/events', turn('e-first'))).ok).toBe(true)
    await hook.waitFor((rs) => rs.length >= 2)
    await otlp.waitFor((rs) => logRecords(rs).length >= 2)
    await stop(server)

    server = await startNodeServer(env)
    // The first read rebuilds the session by replaying its journal.
    const snapshot = (await (await fetch(`${server.baseUrl}/v1/sessions/restarted`)).json()) as { invocations: unknown[] }
    expect(snapshot.invocations).toHaveLength(1)
    expect((await post(server.baseUrl, '/v1/sessions/restarted/events', turn('e-second'))).ok).toBe(true)
    expect((await post(server.baseUrl, '/v1/sessions/restarted/end', '')).status).toBe(200)
    await hook.waitFor((rs) => rs.some((r) => r.headers['x-evalstream-delivery'] === 'restarted/case'))
    await otlp.waitFor((rs) => logRecords(rs).some((r) => r.attributes['gen_ai.evaluation.name'] === 'evalstream.case'))
    // SIGTERM flushes whatever is still queued, so the receivers now hold everything ever sent.
    await stop(server)
    server = undefined

    const ids = hook.requests.map((r) => r.headers['x-evalstream-delivery'])
    // Every result once: two criteria and four efficiency metrics per invocation, and the case.
    const metrics = [...Object.keys(CONFIG.criteria), ...EFFICIENCY_METRICS]
    const expected = ['restarted/case', ...[0, 1].flatMap((i) => metrics.map((m) => `restarted/result/${i}/${m}/0`))]
    expect(ids.sort()).toEqual(expected.sort())
    const keys = logRecords(otlp.requests).map((r) => r.attributes['evalstream.result.key'])
    expect(keys.sort()).toEqual(ids.map((id) => id!.slice('restarted/'.length)))
  })
})

describe('exporters on Deno', () => {
  let hook: Receiver
  let otlp: Receiver
  let deno: Running
  beforeAll(async () => {
    hook = await startReceiver((_, n) => (n === 0 ? 503 : 200))
    otlp = await startReceiver()
    deno = await startDeno({
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${otlp.url}/v1/logs`,
      OTEL_SERVICE_NAME: 'evals-on-deno',
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'type:case',
    })
  })
  afterAll(async () => {
    await deno?.stop()
    await hook?.close()
    await otlp?.close()
  })

  it('exports gen_ai.evaluation.result events and a signed webhook, retried after a 503', async () => {
    const one = { eval_id: 'one', conversation: [TWO_TURN_CASE.conversation[0]!], session_input: { app_name: 'weather', user_id: 'u' } }
    expect(
      (await post(deno.baseUrl, '/v1/sessions', JSON.stringify({ session_id: 'on-deno', eval_config: CONFIG, eval_case: one }))).status,
    ).toBe(201)
    expect((await post(deno.baseUrl, '/v1/sessions/on-deno/events', WEATHER_SSE, 'text/event-stream')).ok).toBe(true)
    expect((await post(deno.baseUrl, '/v1/sessions/on-deno/end', '')).status).toBe(200)
    const records = logRecords(await otlp.waitFor((rs) => logRecords(rs).length >= 7))
    expect(records.map((r) => r.attributes['gen_ai.evaluation.name']).sort()).toEqual(EXPORTED_NAMES)
    for (const r of records) {
      expect(r.record.eventName).toBe('gen_ai.evaluation.result')
      expect(r.resource['service.name']).toBe('evals-on-deno')
      const label = String(r.attributes['gen_ai.evaluation.name']).endsWith('_v1') ? 'informational' : 'passed'
      expect(r.attributes).toMatchObject({
        'evalstream.session.id': 'on-deno',
        'evalstream.app.name': 'weather',
        'gen_ai.evaluation.score.label': label,
      })
    }
    const [, delivered] = await hook.waitFor((rs) => rs.length >= 2)
    expect(delivered!.headers['x-evalstream-delivery']).toBe('on-deno/case')
    expect(
      (await verifyWebhook(
        SECRET,
        delivered!.headers['x-evalstream-timestamp']!,
        delivered!.headers['x-evalstream-signature']!,
        delivered!.body,
      )).ok,
    ).toBe(true)
  })
})

/**
 * Webhooks on Node, in process, against a loopback receiver: signed POSTs that verify, the filter,
 * retries after a 500, per-session webhooks with their own secret, and the SSRF refusals.
 * Covers: src/export/webhook-sender.ts, src/export/webhook-signature.ts, src/export/webhook-target.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env } from '../../../src/config/setup.ts'
import { verifyWebhook } from '../../../src/export/webhook-signature.ts'
import { CONFIG, DIVERGING_CASE, MATCHING_CASE } from '../../support/weather-fixtures.ts'
import { type Received, type Receiver, startReceiver } from '../../support/otlp-receiver.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { runSession } from './otel-session.ts'
import { testTempDir } from '../../support/temp-dir.ts'

const SECRET = 'deployment-secret-0123456789'
const SESSION_SECRET = 'session-secret-abcdefghij'
const receivers: Receiver[] = []
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close()
})

async function receiver(respond?: (r: Received, n: number) => number) {
  const r = await startReceiver(respond)
  receivers.push(r)
  return r
}

function host(env: Env) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...env }, {
    store: (limits, feed) => memorySessionStore({ limits, feed }),
    exporters: { backoffMs: 5 },
  })
  if (!setup.ok) throw new Error(setup.error)
  return { app: createApp(setup.deps), deps: setup.deps }
}

const body = (r: Received) => r.json as { id: string; type: string; session_id: string; key: string; data: Record<string, unknown> }

describe('webhooks (Node, in process)', () => {
  it('POSTs each FAILED result, signed with the secret over timestamp.body, with an idempotency id', async () => {
    const hook = await receiver()
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: `${hook.url}/hook?team=a`,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'status:FAILED',
    })
    await runSession(app, 'wh-1', DIVERGING_CASE)
    await deps.exporters!.idle()
    // The trajectory FAILED and so did the case; response_match_score PASSED and is filtered out.
    expect(hook.requests.map((r) => body(r).type).sort()).toEqual(['case.result', 'criterion.result'])
    for (const r of hook.requests) {
      expect(r.path).toBe('/hook?team=a')
      expect(r.headers['content-type']).toBe('application/json')
      expect(r.headers['x-evalstream-signature']).toMatch(/^sha256=[0-9a-f]{64}$/)
      expect(await verifyWebhook(SECRET, r.headers['x-evalstream-timestamp']!, r.headers['x-evalstream-signature']!, r.body)).toEqual({
        ok: true,
      })
      expect(
        await verifyWebhook(
          'another-secret-0123456789',
          r.headers['x-evalstream-timestamp']!,
          r.headers['x-evalstream-signature']!,
          r.body,
        ),
      ).toMatchObject({ ok: false })
      // A body changed in transit no longer verifies.
      expect(
        (await verifyWebhook(
          SECRET,
          r.headers['x-evalstream-timestamp']!,
          r.headers['x-evalstream-signature']!,
          r.body.replace('"session_id":"wh-1"', '"session_id":"wh-2"'),
        )).ok,
      ).toBe(false)
      expect(r.headers['x-evalstream-delivery']).toBe(`wh-1/${body(r).key}`)
      expect(r.headers['idempotency-key']).toBe(body(r).id)
      expect(body(r).session_id).toBe('wh-1')
    }
    const criterion = hook.requests.map(body).find((b) => b.type === 'criterion.result')!
    expect(criterion.data).toMatchObject({ metric_name: 'tool_trajectory_avg_score', eval_status: 'FAILED', score: 0 })
  })

  it('verifies with the Node snippet docs/webhooks.md gives receivers', async () => {
    const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8')
    const snippet = /```js\n([\s\S]*?)```/.exec(doc)![1]!
    const file = join(testTempDir('evalstream-doc-'), 'verify.mjs')
    writeFileSync(file, snippet)
    const { verifyEvalstream } = (await import(pathToFileURL(file).href)) as {
      verifyEvalstream: (s: string, h: Record<string, string>, b: string | Buffer, now?: number) => boolean
    }
    const hook = await receiver()
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'type:case',
    })
    await runSession(app, 'wh-doc', MATCHING_CASE)
    await deps.exporters!.idle()
    const r = hook.requests[0]!
    expect(verifyEvalstream(SECRET, r.headers, Buffer.from(r.body))).toBe(true)
    expect(verifyEvalstream(SECRET, r.headers, r.body + ' ')).toBe(false)
    expect(verifyEvalstream('wrong-secret-0123456789', r.headers, r.body)).toBe(false)
    // A replay ten minutes later is refused even with its genuine signature.
    expect(verifyEvalstream(SECRET, r.headers, r.body, Number(r.headers['x-evalstream-timestamp']) + 600)).toBe(false)
  })

  it('filters on criterion and type, and sends nothing for a session that matches nothing', async () => {
    const hook = await receiver()
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'criterion:response_match_score,criterion:tool_trajectory_avg_score,status:FAILED',
    })
    await runSession(app, 'wh-pass', MATCHING_CASE)
    await runSession(app, 'wh-fail', DIVERGING_CASE)
    await deps.exporters!.idle()
    expect(hook.requests.map((r) => [body(r).session_id, body(r).data.metric_name])).toEqual([['wh-fail', 'tool_trajectory_avg_score']])
  })

  it('retries after a 500 with the same delivery id and a fresh signature, then stops', async () => {
    const hook = await receiver((_, n) => (n === 0 ? 500 : 200))
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'type:case',
    })
    await runSession(app, 'wh-retry', MATCHING_CASE)
    await deps.exporters!.idle()
    expect(hook.requests).toHaveLength(2)
    const [first, second] = hook.requests
    expect(first!.headers['x-evalstream-delivery']).toBe('wh-retry/case')
    expect(second!.headers['x-evalstream-delivery']).toBe('wh-retry/case')
    expect([first!.headers['x-evalstream-attempt'], second!.headers['x-evalstream-attempt']]).toEqual(['1', '2'])
    expect(
      (await verifyWebhook(SECRET, second!.headers['x-evalstream-timestamp']!, second!.headers['x-evalstream-signature']!, second!.body))
        .ok,
    ).toBe(true)
    expect(deps.exporters!.stats().webhooks).toMatchObject({ sent: 1, retries: 1, failed: 0 })
  })

  it('gives up on a 4xx without retrying', async () => {
    const hook = await receiver(() => 410)
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: hook.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'type:case',
    })
    await runSession(app, 'wh-gone', MATCHING_CASE)
    await deps.exporters!.idle()
    expect(hook.requests).toHaveLength(1)
    expect(deps.exporters!.stats().webhooks).toMatchObject({ sent: 0, failed: 1 })
  })

  it("delivers a session's own webhook signed with its own secret, alongside the deployment one", async () => {
    const deployment = await receiver()
    const own = await receiver()
    const { app, deps } = host({
      EVALSTREAM_WEBHOOK_URL: deployment.url,
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'type:case',
      EVALSTREAM_WEBHOOK_ALLOW_PRIVATE: '1',
    })
    await runSession(app, 'wh-own', MATCHING_CASE, {
      webhook: { url: `${own.url}/mine`, secret: SESSION_SECRET, filter: 'criterion:tool_trajectory_avg_score' },
    })
    await deps.exporters!.idle()
    expect(own.requests.map((r) => body(r).data.metric_name)).toEqual(['tool_trajectory_avg_score'])
    const r = own.requests[0]!
    expect((await verifyWebhook(SESSION_SECRET, r.headers['x-evalstream-timestamp']!, r.headers['x-evalstream-signature']!, r.body)).ok)
      .toBe(true)
    expect((await verifyWebhook(SECRET, r.headers['x-evalstream-timestamp']!, r.headers['x-evalstream-signature']!, r.body)).ok).toBe(false)
    expect(deployment.requests.map((q) => body(q).type)).toEqual(['case.result'])
  })

  describe('session webhooks are refused where they could reach inside the network', () => {
    const { app } = host({})
    const create = (webhook: unknown) =>
      app.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eval_config: CONFIG, eval_case: MATCHING_CASE, webhook }),
      })
    const refused: Array<[string, RegExp]> = [
      ['http://127.0.0.1:8080/hook', /127\.0\.0\.1 is a loopback address/],
      ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
      ['http://[::1]/', /loopback/],
      ['http://[::ffff:10.0.0.1]/', /private address/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['http://metadata.google.internal/', /internal name/],
      ['http://localhost:3000/', /internal name/],
      ['http://192.168.1.10/', /private address/],
      ['http://intranet/', /single-label/],
      ['ftp://example.com/', /only http and https/],
      ['https://user:pw@example.com/', /credentials/],
    ]
    for (const [url, why] of refused) {
      it(`refuses ${url}`, async () => {
        const res = await create({ url, secret: SESSION_SECRET })
        expect(res.status).toBe(400)
        expect(((await res.json()) as { detail: string }).detail).toMatch(why)
      })
    }
    it('refuses a short secret and a bad filter, and accepts a public https URL', async () => {
      expect((await create({ url: 'https://hooks.example.com/e', secret: 'short' })).status).toBe(400)
      const bad = await create({ url: 'https://hooks.example.com/e', secret: SESSION_SECRET, filter: 'status:BROKEN' })
      expect(((await bad.json()) as { detail: string }).detail).toMatch(/status must be PASSED, FAILED or NOT_EVALUATED/)
      expect((await create({ url: 'https://hooks.example.com/e', secret: SESSION_SECRET, filter: 'status:FAILED' })).status).toBe(201)
    })
  })

  it('refuses at send time a session webhook whose public-looking name resolves to an internal address', async () => {
    const logs: string[] = []
    const asked: string[] = []
    const setup = depsFromEnv(NO_JUDGE_ENV, {
      store: (limits, feed) => memorySessionStore({ limits, feed }),
      // The resolver port (Node passes dns.lookup, Deno Deno.resolveDns): this name points at loopback.
      exporters: {
        backoffMs: 5,
        log: (m) => logs.push(m),
        resolve: async (name) => (asked.push(name), ['93.184.215.14', '::ffff:127.0.0.1']),
      },
    })
    if (!setup.ok) throw new Error(setup.error)
    await runSession(createApp(setup.deps), 'wh-rebind', MATCHING_CASE, {
      webhook: { url: 'https://hooks.example.com/e', secret: SESSION_SECRET, filter: 'type:case' },
    })
    await setup.deps.exporters!.idle()
    expect(asked).toEqual(['hooks.example.com'])
    expect(setup.deps.exporters!.stats().webhooks).toMatchObject({ sent: 0, failed: 1, retries: 0 })
    expect(logs.join('\n')).toMatch(/hooks\.example\.com resolves to ::ffff:127\.0\.0\.1: its host .* is a loopback address/)
  })

  it('refuses every session webhook with EVALSTREAM_WEBHOOK_SESSIONS=off', async () => {
    const { app } = host({ EVALSTREAM_WEBHOOK_SESSIONS: 'off', EVALSTREAM_WEBHOOK_ALLOW_PRIVATE: '1' })
    const res = await app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ eval_config: CONFIG, webhook: { url: 'https://hooks.example.com/e', secret: SESSION_SECRET } }),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toMatch(/EVALSTREAM_WEBHOOK_SESSIONS=off/)
  })

  it('refuses to start with a URL but no secret, or a bad filter', () => {
    const store = memorySessionStore()
    const noSecret = depsFromEnv({ EVALSTREAM_WEBHOOK_URL: 'https://h.example.com' }, { store })
    expect(noSecret.ok || noSecret.error).toMatch(/EVALSTREAM_WEBHOOK_SECRET must be at least 16 characters/)
    const badFilter = depsFromEnv({
      EVALSTREAM_WEBHOOK_URL: 'https://h.example.com',
      EVALSTREAM_WEBHOOK_SECRET: SECRET,
      EVALSTREAM_WEBHOOK_FILTER: 'colour:red',
    }, { store })
    expect(badFilter.ok || badFilter.error).toMatch(/EVALSTREAM_WEBHOOK_FILTER: 'colour:red' is not field:value/)
  })
})

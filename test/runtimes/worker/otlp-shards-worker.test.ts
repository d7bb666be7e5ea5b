/**
 * OTLP ingest sharded by trace on workerd (Miniflare, one instance for the file): the router
 * decodes each request and sends each trace's spans to the shard owning it. A conversation whose
 * two traces land on different shards gets each invocation once, scored as the in-process Node app
 * scores the same requests; a shard evicted mid-trace loses no completed invocation; two tenants
 * sending the same trace ids never share a shard; the conversation's idle clock lives in its own
 * session object, not in a shard.
 * Covers: worker/otlp-shard.ts, worker/shards.ts, worker/conversation-idle.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACME_TOKEN, GLOBEX_TOKEN, TOKENS_ENV } from '../../support/auth-suite.ts'
import { readSse } from '../../support/sse-client.ts'
import { type Running, startWorker } from '../../support/runtimes.ts'
import { fixtureText } from '../../unit/otlp/support/fixtures.ts'
import { fixtureRequests, OTLP_CONFIG, receiverApp } from '../../unit/otlp/support/receiver-app.ts'
import { shardOf } from '../../../worker/shards.ts'

type Json = Record<string, any>
const SHARDS = 4
// adk-js.jsonl: turn 1's child spans, its root, turn 2's child spans, its root (one conversation).
const REQUESTS = fixtureRequests(fixtureText('adk-js.jsonl'))
const traceOf = (line: string): string => JSON.parse(line).resourceSpans[0].scopeSpans[0].spans[0].traceId
const TURN_1 = traceOf(REQUESTS[0]!)
const TURN_2 = traceOf(REQUESTS[2]!)
const acme = { authorization: `Bearer ${ACME_TOKEN}` }
const globex = { authorization: `Bearer ${GLOBEX_TOKEN}` }

/** Per invocation: each criterion's score and status, as a snapshot shows them. */
const scores = (snapshot: Json) =>
  snapshot.invocations.map((i: Json) => ({
    completed: i.completed,
    results: Object.fromEntries(Object.entries(i.results as Json).map(([k, r]) => [k, r && [r.score, r.eval_status ?? r.status]])),
  }))

describe('OTLP shards on workerd', () => {
  let worker: Running
  const call = (path: string, init?: RequestInit) => fetch(`${worker.baseUrl}${path}`, init)
  const post = async (line: string, headers: Record<string, string>) => {
    const res = await call('/v1/traces', { method: 'POST', body: line, headers: { ...headers, 'content-type': 'application/json' } })
    return [res.status, await res.text()]
  }
  const snapshot = async (id: string, headers: Record<string, string>): Promise<Json> =>
    (await call(`/v1/sessions/${encodeURIComponent(id)}`, { headers })).json()

  beforeAll(async () => {
    worker = await startWorker({
      EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG,
      EVALSTREAM_OTLP_SHARDS: String(SHARDS),
      EVALSTREAM_TOKENS: TOKENS_ENV,
    })
  }, 120_000)
  afterAll(async () => {
    await worker?.stop()
  })

  it('a conversation whose traces land on different shards gets each invocation once, scored as on Node', async () => {
    // The premise: this fixture's two turns are assembled by two different objects.
    expect(shardOf(TURN_1, SHARDS)).not.toBe(shardOf(TURN_2, SHARDS))
    for (const line of REQUESTS) expect(await post(line, acme)).toEqual([200, '{}'])

    const node = receiverApp()
    for (const line of REQUESTS) expect((await node.post('/v1/traces', line)).status).toBe(200)
    const onNode = (await (await node.app.request('/v1/sessions/otlp-session-js')).json()) as Json

    const onWorker = await snapshot('acme:otlp-session-js', acme)
    expect(onWorker.invocations).toHaveLength(2)
    expect(scores(onWorker)).toEqual(scores(onNode))

    // Ended, the session's whole result log: every criterion once per invocation, never revised.
    expect((await call('/v1/sessions/acme:otlp-session-js/end', { method: 'POST', headers: acme })).status).toBe(200)
    const log = await readSse(await call('/v1/sessions/acme:otlp-session-js/results', { headers: acme }))
    const criteria = log.filter((m) => m.event === 'criterion.result').map((m) => m.data as Json)
    const keys = criteria.map((d) => `${d.invocation_index}/${d.metric_name}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(criteria.every((d) => d.revision === undefined || d.revision === 0)).toBe(true)
    expect(new Set(criteria.map((d) => d.invocation_index))).toEqual(new Set([0, 1]))
  })

  it('tenants sending the same trace ids never share a shard', async () => {
    // acme's two turns were scored above: a shard shared with acme would take globex's spans of
    // the same traces as late ones of scored traces, and score nothing.
    for (const line of REQUESTS.slice(0, 2)) expect(await post(line, globex)).toEqual([200, '{}'])
    const session = await snapshot('globex:otlp-session-js', globex)
    expect(scores(session)).toEqual([scores(await snapshot('acme:otlp-session-js', acme))[0]])
    // The objects themselves: each tenant's shard of turn 1 has held that tenant's spans only.
    const shard = shardOf(TURN_1, SHARDS)
    for (const [tenant, headers] of [['acme', acme], ['globex', globex]] as const) {
      const info = (await (await call(`/__test/otlp-shards/${shard}/info`, { headers })).json()) as Json
      expect(info.tenants).toEqual([tenant])
    }
    // Each tenant sees only its own session.
    expect((await call('/v1/sessions/acme:otlp-session-js', { headers: globex })).status).toBe(404)
  })

  it('a shard evicted in the middle of a trace loses no completed invocation', async () => {
    // globex's turn 1 was scored above.
    const before = scores(await snapshot('globex:otlp-session-js', globex))
    expect(before).toHaveLength(1)
    expect(before[0].completed).toBe(true)

    // Turn 2's child spans are held by its shard, open; then both shards go, as the runtime may evict them.
    expect(await post(REQUESTS[2]!, globex)).toEqual([200, '{}'])
    for (const trace of [TURN_1, TURN_2]) {
      const evicted = await call(`/__test/otlp-shards/${shardOf(trace, SHARDS)}/evict`, { method: 'POST', headers: globex })
      expect(evicted.status).toBe(204)
    }
    // The shards come back empty; turn 2's root still arrives and is answered.
    expect(await post(REQUESTS[3]!, globex)).toEqual([200, '{}'])

    const after = scores(await snapshot('globex:otlp-session-js', globex))
    expect(after[0]).toEqual(before[0])
    // A retried export of turn 1 (its shard forgot it) adds nothing to the completed invocation.
    expect(await post(REQUESTS[1]!, globex)).toEqual([200, '{}'])
    expect(scores(await snapshot('globex:otlp-session-js', globex))[0]).toEqual(before[0])
  })

  it("keeps a conversation's idle clock in its session object, not in a shard", async () => {
    const storage = (await (await call('/v1/sessions/globex:otlp-session-js/__storage', { headers: globex })).json()) as Json
    expect(storage.rows.otlp_conversations).toBe(1)
  })
})

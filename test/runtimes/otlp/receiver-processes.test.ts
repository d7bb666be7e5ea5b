/**
 * The OTLP receiver in real server processes: Node and Deno, sessions in SQLite (EVALSTREAM_DB in a
 * temporary folder). ADK Go's traces and log records, posted as its exporter sends them (gzip
 * protobuf), become a scored session; a restarted process rebuilds it from the database with the
 * same results and ends it with a passing case result. On workerd the router decodes the spans and
 * sends each trace's to the shard object owning it, which sends each completed trace to its
 * conversation's session object; that object ends the conversation once it is idle.
 * Covers: src/otlp-monitor/monitor.ts, src/adapter/node/server.ts, src/adapter/deno/server.ts, worker/otlp-shard.ts, worker/conversation-idle.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnServer } from '../../support/server-process.ts'
import { startWorker } from '../../support/runtimes.ts'
import { encodeLogsProtobuf, encodeTracesProtobuf } from '../../unit/otlp/support/encode-protobuf.ts'
import { fixtureText } from '../../unit/otlp/support/fixtures.ts'
import { OTLP_CONFIG } from '../../unit/otlp/support/receiver-app.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-otlp-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Json = Record<string, any>
const SESSION = 'otlp-session-go'
/** How long the workerd alarm tests wait for an object's alarm to fire. */
const ALARM_DEADLINE_MS = 120_000

async function postFixture(baseUrl: string): Promise<void> {
  for (const line of fixtureText('adk-go.jsonl').split('\n').filter((l) => l.trim() !== '')) {
    const body = JSON.parse(line)
    const logs = 'resourceLogs' in body
    const bytes = gzipSync(logs ? encodeLogsProtobuf(body) : encodeTracesProtobuf(body))
    const res = await fetch(`${baseUrl}${logs ? '/v1/logs' : '/v1/traces'}`, {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-protobuf')
    await res.arrayBuffer()
  }
}

const trajectory = (snapshot: Json) => snapshot.invocations.map((i: Json) => [i.completed, i.results.tool_trajectory_avg_score?.score])

describe.each(['node', 'deno'] as const)('OTLP receiver in a %s process', (runtime) => {
  it('scores a posted conversation, and a restarted process rebuilds and ends it', async () => {
    const env = { EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG, EVALSTREAM_DB: join(dir, `${runtime}.db`) }
    const options = { env, ...(runtime === 'deno' ? { denoWrite: dir } : {}) }
    const first = await spawnServer(runtime, options)
    let live: Json
    try {
      await postFixture(first.baseUrl)
      live = (await (await fetch(`${first.baseUrl}/v1/sessions/${SESSION}`)).json()) as Json
      expect(trajectory(live)).toEqual([
        [true, 1],
        [true, 1],
      ])
    } finally {
      await first.stop()
    }
    const second = await spawnServer(runtime, options)
    try {
      const rebuilt = (await (await fetch(`${second.baseUrl}/v1/sessions/${SESSION}`)).json()) as Json
      expect(rebuilt.invocations).toEqual(live.invocations)
      const ended = (await (await fetch(`${second.baseUrl}/v1/sessions/${SESSION}/end`, { method: 'POST' })).json()) as Json
      expect(ended.final_eval_status).toBe(1) // PASSED
      expect(ended.overall_eval_metric_results.find((m: Json) => m.metric_name === 'invocation_duration_v1')?.score).toBe(3.5)
    } finally {
      await second.stop()
    }
  }, 120_000)
})

describe('OTLP receiver on workerd', () => {
  it("fans each trace out to its conversation's session object, scored as on Node", async () => {
    const worker = await startWorker({ EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG })
    try {
      for (const line of fixtureText('adk-js.jsonl').split('\n').filter((l) => l.trim() !== '')) {
        const res = await fetch(`${worker.baseUrl}/v1/traces`, {
          method: 'POST',
          body: line,
          headers: { 'content-type': 'application/json' },
        })
        expect([res.status, await res.text()]).toEqual([200, '{}'])
      }
      const snapshot = (await (await fetch(`${worker.baseUrl}/v1/sessions/otlp-session-js`)).json()) as Json
      expect(trajectory(snapshot)).toEqual([
        [true, 1],
        [true, 1],
      ])
      const ended = (await (await fetch(`${worker.baseUrl}/v1/sessions/otlp-session-js/end`, { method: 'POST' })).json()) as Json
      expect(ended.final_eval_status).toBe(1)
      expect(ended.overall_eval_metric_results.find((m: Json) => m.metric_name === 'invocation_duration_v1')?.score).toBe(3.5)
      // The object-to-object path is not reachable from outside.
      expect((await fetch(`${worker.baseUrl}/__otlp/invocation`, { method: 'POST', body: '{}' })).status).toBe(404)
    } finally {
      await worker.stop()
    }
  }, 120_000)

  it("completes a trace whose root never comes on its shard's alarm", async () => {
    const worker = await startWorker({ EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG, EVALSTREAM_OTLP_TRACE_GRACE_MS: '1' })
    try {
      const [children] = fixtureText('adk-js.jsonl').split('\n') // turn 1 without its root span
      expect(
        (await fetch(`${worker.baseUrl}/v1/traces`, { method: 'POST', body: children!, headers: { 'content-type': 'application/json' } }))
          .status,
      ).toBe(200)
      // The alarm is due 1 ms after the request; wait for its effect, up to a deadline.
      const deadline = Date.now() + ALARM_DEADLINE_MS
      let snapshot: Json | undefined
      while (!snapshot?.invocations?.[0]?.completed) {
        if (Date.now() > deadline) throw new Error(`the grace alarm did not complete the trace within ${ALARM_DEADLINE_MS} ms`)
        await new Promise((resolve) => setTimeout(resolve, 50))
        const res = await fetch(`${worker.baseUrl}/v1/sessions/otlp-session-js`)
        snapshot = res.status === 200 ? ((await res.json()) as Json) : (await res.body?.cancel(), undefined)
      }
      expect(trajectory(snapshot)).toEqual([[true, 1]])
    } finally {
      await worker.stop()
    }
  }, 120_000)

  it("ends an idle conversation on its own session object's alarm", async () => {
    const worker = await startWorker({ EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG, EVALSTREAM_OTLP_CONVERSATION_IDLE_MS: '1' })
    try {
      // Turn 1 in one request, so it reaches the session whole, in one delivery, before any idle time can pass.
      const [children, root] = fixtureText('adk-js.jsonl').split('\n').map((l) => (l.trim() ? JSON.parse(l) : undefined))
      const body = JSON.stringify({ resourceSpans: [...children.resourceSpans, ...root.resourceSpans] })
      const res = await fetch(`${worker.baseUrl}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
      expect([res.status, await res.text()]).toEqual([200, '{}'])
      // Idle 1 ms after its trace: the session object's alarm ends it; wait for that, up to a deadline.
      const deadline = Date.now() + ALARM_DEADLINE_MS
      let snapshot: Json | undefined
      while (!snapshot?.ended) {
        if (Date.now() > deadline) throw new Error(`the idle alarm did not end the conversation within ${ALARM_DEADLINE_MS} ms`)
        await new Promise((resolve) => setTimeout(resolve, 50))
        snapshot = (await (await fetch(`${worker.baseUrl}/v1/sessions/otlp-session-js`)).json()) as Json
      }
      expect(trajectory(snapshot)).toEqual([[true, 1]])
      // Its idle clock went with it.
      const storage = (await (await fetch(`${worker.baseUrl}/v1/sessions/otlp-session-js/__storage`)).json()) as Json
      expect(storage.rows.otlp_conversations ?? 0).toBe(0)
    } finally {
      await worker.stop()
    }
  }, 120_000)
})

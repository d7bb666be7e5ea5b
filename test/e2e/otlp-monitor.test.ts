/**
 * End to end with a REAL ADK for JavaScript api_server whose own OpenTelemetry exporter points at
 * evalstream (OTEL_EXPORTER_OTLP_ENDPOINT, no change to the agent): the conversation it traces
 * becomes a monitored session whose scores equal, criterion by criterion, those of the same run's
 * /run_sse capture pushed into a session. The trace knows one thing the capture does not: the
 * invocation's duration (root span end minus start), so that metric is compared with the span's.
 * Needs: npm install --prefix test/e2e/agent.
 */
import { readFileSync } from 'node:fs'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { type Running, startNode } from '../support/runtimes.ts'

const APP = 'weather_agent'
const USER = 'e2e-user'
const EVAL_CASE = JSON.parse(readFileSync(new URL('../fixtures/weather.evalset.json', import.meta.url), 'utf8')).eval_cases[0]
const CONFIG = JSON.parse(readFileSync(new URL('../fixtures/weather.test_config.json', import.meta.url), 'utf8'))
/** How long the agent's BatchSpanProcessor waits before exporting (OTEL_BSP_SCHEDULE_DELAY). */
const EXPORT_DELAY_MS = 200
/** How long the test waits for the exported trace to be scored before failing. */
const SCORED_DEADLINE_MS = 120_000

type Json = Record<string, any>

let agent: AdkAgent
let evalstream: Running
beforeAll(async () => {
  evalstream = await startNode({
    EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { [APP]: { eval_config: CONFIG, eval_case: EVAL_CASE } } }),
  })
  agent = await startAdkAgent({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: evalstream.baseUrl, OTEL_BSP_SCHEDULE_DELAY: String(EXPORT_DELAY_MS) },
  })
}, 120_000)
afterAll(async () => {
  await agent?.stop()
  await evalstream?.stop()
})

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function capture(sessionId: string): Promise<string> {
  const res = await post(agent.url, '/run_sse', {
    appName: APP,
    userId: USER,
    sessionId,
    newMessage: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
    streaming: false,
  })
  const reader = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  let out = ''
  for (let r = await reader.read(); !r.done; r = await reader.read()) out += `data: ${r.value.data}\n\n`
  return out
}

/** The monitored session's snapshot once its first invocation is scored (the exporter sends within EXPORT_DELAY_MS). */
async function whenScored(id: string): Promise<Json> {
  const deadline = Date.now() + SCORED_DEADLINE_MS
  for (;;) {
    const res = await fetch(`${evalstream.baseUrl}/v1/sessions/${id}`)
    if (res.status === 200) {
      const snapshot = (await res.json()) as Json
      if (snapshot.invocations?.[0]?.completed) return snapshot
    } else await res.body?.cancel()
    if (Date.now() > deadline) {
      throw new Error(`no scored OTLP session '${id}' within ${SCORED_DEADLINE_MS} ms; agent log:\n${agent.logs()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, EXPORT_DELAY_MS))
  }
}

const scores = (caseResult: Json) =>
  caseResult.eval_metric_result_per_invocation.map((p: Json) =>
    Object.fromEntries(p.eval_metric_results.map((m: Json) => [m.metric_name, [m.score, m.eval_status]]))
  )

describe('a real ADK agent exporting OTLP to evalstream', () => {
  it('scores its trace as the same run captured from /run_sse, criterion by criterion', async () => {
    const sessionId = `otlp-e2e-${Date.now()}`
    expect((await post(agent.url, `/apps/${APP}/users/${USER}/sessions/${sessionId}`, { state: {} })).status).toBe(200)
    const sse = await capture(sessionId)

    await whenScored(`otlp-${sessionId}`)
    const monitored = (await (await post(evalstream.baseUrl, `/v1/sessions/otlp-${sessionId}/end`, {})).json()) as Json

    expect(
      (await post(evalstream.baseUrl, '/v1/sessions', { session_id: `capture-${sessionId}`, eval_case: EVAL_CASE, eval_config: CONFIG }))
        .status,
    ).toBe(201)
    const pushed = await fetch(`${evalstream.baseUrl}/v1/sessions/capture-${sessionId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'text/event-stream' },
      body: sse,
    })
    expect(((await pushed.json()) as Json).rejected).toEqual([])
    const captured = (await (await post(evalstream.baseUrl, `/v1/sessions/capture-${sessionId}/end`, {})).json()) as Json

    const [fromTrace] = scores(monitored)
    const [fromCapture] = scores(captured)
    expect(Object.keys(fromTrace).sort()).toEqual(Object.keys(fromCapture).sort())
    for (const metric of Object.keys(fromCapture)) {
      if (metric !== 'invocation_duration_v1') expect([metric, fromTrace[metric]]).toEqual([metric, fromCapture[metric]])
    }
    expect(fromTrace.tool_trajectory_avg_score[0]).toBe(1)
    // The root span's duration: positive, and no longer than the whole /run_sse round trip could take.
    expect(fromTrace.invocation_duration_v1[0]).toBeGreaterThan(0)
    expect(monitored.final_eval_status).toBe(captured.final_eval_status)
  })
})

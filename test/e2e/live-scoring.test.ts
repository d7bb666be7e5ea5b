/**
 * End to end with a REAL ADK for JavaScript api_server: a conversation scored live through
 * evalstream's proxy, and the agent's own /run_sse stream pushed into a session, both give the same
 * scores as `evalstream eval` on the same capture. Needs: npm install --prefix test/e2e/agent.
 */
import { readFileSync } from 'node:fs'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runEval } from '../../src/adapter/node/eval-command.ts'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { type Running, startNode } from '../support/runtimes.ts'

const APP = 'weather_agent'
const USER = 'e2e-user'
const EVALSET_PATH = new URL('../fixtures/weather.evalset.json', import.meta.url).pathname
const CONFIG_PATH = new URL('../fixtures/weather.test_config.json', import.meta.url).pathname
const EVAL_CASE = JSON.parse(readFileSync(EVALSET_PATH, 'utf8')).eval_cases[0]
const CONFIG = JSON.parse(readFileSync(CONFIG_PATH, 'utf8'))

type Frame = { event?: string; data: string }
type Json = Record<string, any>

let agent: AdkAgent
let evalstream: Running
beforeAll(async () => {
  agent = await startAdkAgent()
  evalstream = await startNode({ AGENT_URL: agent.url })
}, 120_000)
afterAll(async () => {
  await evalstream?.stop()
  await agent?.stop()
})

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

async function frames(response: Response): Promise<Frame[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  const out: Frame[] = []
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push({ event: r.value.event, data: r.value.data })
  return out
}

function runSseBody(sessionId: string, streaming: boolean) {
  return { appName: APP, userId: USER, sessionId, newMessage: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }, streaming }
}

/** The agent's frames as a /run_sse body, the way a capture stores them. */
const asCapture = (agentFrames: Frame[]) => agentFrames.map((f) => `data: ${f.data}\n\n`).join('')

/** What `evalstream eval` says about a capture: per-invocation and overall scores by metric. */
async function cliScores(capture: string) {
  const outcome = await runEval({
    evalSetPath: EVALSET_PATH,
    configPath: CONFIG_PATH,
    eventsName: 'capture.sse',
    eventsText: capture,
    env: {},
  })
  if (!outcome.ok) throw new Error(outcome.error)
  return scoresOf(outcome.evalSetResult.eval_case_results[0] as unknown as Json, 'PASSED')
}

/** Every metric but the wall time, which only a live run measures (a capture read back has none). */
const replayable = (m: Json) => m.metric_name !== 'invocation_duration_v1'

/** Scores of an EvalCaseResult (file shape: statuses 1/2/3; typed shape: names). */
function scoresOf(caseResult: Json, passed: unknown = 1) {
  return {
    passed: caseResult.final_eval_status === passed,
    overall: Object.fromEntries(caseResult.overall_eval_metric_results.filter(replayable).map((m: Json) => [m.metric_name, m.score])),
    perInvocation: caseResult.eval_metric_result_per_invocation.map((p: Json) =>
      Object.fromEntries(p.eval_metric_results.filter(replayable).map((m: Json) => [m.metric_name, m.score]))
    ),
  }
}

describe('live scoring of a real ADK agent', () => {
  for (const streaming of [false, true]) {
    it(`proxy mode (streaming ${streaming}): agent frames pass unchanged, scores equal evalstream eval`, async () => {
      const sessionId = `proxy-${streaming}-${Date.now()}`
      // An evalstream session with the case and config, then the ADK session, through evalstream.
      expect((await post(evalstream.baseUrl, '/v1/sessions', { session_id: sessionId, eval_case: EVAL_CASE, eval_config: CONFIG })).status)
        .toBe(201)
      expect((await post(evalstream.baseUrl, `/apps/${APP}/users/${USER}/sessions/${sessionId}`, { state: {} })).status).toBe(200)

      const proxied = await post(evalstream.baseUrl, '/run_sse', runSseBody(sessionId, streaming), {
        'x-evalstream-session': sessionId,
        // The results in the same stream: asked for, since by default the client gets the agent's frames only.
        'x-evalstream-results': 'inline',
      })
      expect(proxied.status).toBe(200)
      const all = await frames(proxied)
      const agentFrames = all.filter((f) => f.event === undefined || f.event === 'message')
      const scoreFrames = all.filter((f) => f.event === 'evalstream').map((f) => JSON.parse(f.data) as Json)

      // Every agent frame is ADK's own JSON; the live results came in the same stream.
      expect(agentFrames.length).toBeGreaterThanOrEqual(streaming ? 8 : 5)
      for (const f of agentFrames) expect(JSON.parse(f.data).author).toBe(APP)
      expect(scoreFrames.some((r) => r.type === 'criterion.result' && r.data.metric_name === 'tool_trajectory_avg_score')).toBe(true)

      const live = scoresOf((await (await post(evalstream.baseUrl, `/v1/sessions/${sessionId}/end`, {})).json()) as Json)
      expect(live).toEqual(await cliScores(asCapture(agentFrames)))
      expect(live.overall.tool_trajectory_avg_score).toBe(1)
      expect(live.overall.response_match_score).toBeGreaterThan(0.8)
      expect(live.passed).toBe(true)
    })
  }

  it('push mode: the agent stream captured directly and pushed into a session scores like evalstream eval', async () => {
    const sessionId = `push-${Date.now()}`
    expect((await post(agent.url, `/apps/${APP}/users/${USER}/sessions/${sessionId}`, { state: {} })).status).toBe(200)
    const direct = await post(agent.url, '/run_sse', runSseBody(sessionId, true))
    const capture = asCapture(await frames(direct))

    expect((await post(evalstream.baseUrl, '/v1/sessions', { session_id: sessionId, eval_case: EVAL_CASE, eval_config: CONFIG })).status)
      .toBe(201)
    const pushed = await fetch(`${evalstream.baseUrl}/v1/sessions/${sessionId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'text/event-stream' },
      body: capture,
    })
    expect(((await pushed.json()) as Json).rejected).toEqual([])
    const live = scoresOf((await (await post(evalstream.baseUrl, `/v1/sessions/${sessionId}/end`, {})).json()) as Json)
    expect(live).toEqual(await cliScores(capture))
    expect(live.passed).toBe(true)
  })
})

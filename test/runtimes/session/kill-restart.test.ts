/**
 * kill -9 with EVALSTREAM_DB: `node src/adapter/node/server.ts` (and the Deno adapter under
 * `deno run`) runs as a child process
 * with a real judge client (the @google/genai SDK against the loopback Gemini stub), is killed with
 * SIGKILL in the middle of a session, and restarted on the same database. The session comes back
 * by replay: every event and result is there exactly once, the answered judge call is not sent
 * again, and the session ends with the same case result as one that was never interrupted.
 * Covers: src/session/session.ts, src/session/sqlite/journal.ts, src/session/sqlite/judge-cache.ts, src/adapter/node/server.ts, src/adapter/deno/server.ts.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, uniqueId } from '../../support/api-suite.ts'
import { TWO_TURN_CASE, WEATHER_EVENTS } from '../../support/weather-fixtures.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'
import { type Message, readSse } from '../../support/sse-client.ts'

const VALID = JSON.stringify({ reasoning: 'same facts', is_the_agent_response_valid: 'valid' })
const CASE = TWO_TURN_CASE
const CONFIG = {
  criteria: { tool_trajectory_avg_score: 1, final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } },
}
const turn = (invocationId: string) => WEATHER_EVENTS.map((e) => ({ ...e, invocationId }))

type Runtime = 'node' | 'deno'

function startServer(runtime: Runtime, env: Record<string, string>): Promise<ServerProcess> {
  // Deno may write only the database's folder.
  return spawnServer(runtime, { env, denoWrite: runtime === 'deno' ? dirname(env.EVALSTREAM_DB!) : undefined })
}

const kill9 = (server: ServerProcess) => server.stop('SIGKILL')

/** Wall-clock durations (invocation_duration_v1) differ between two runs; everything else must not. */
const DURATION = /("metric_name":\s*"invocation_duration_v1"(?:(?!"metric_name")[\s\S])*?"score":\s*)[0-9.e-]+/g
const unmeasured = (text: string) => text.replace(DURATION, '$1"<measured>"')
const normalise = (messages: Message[], id: string) =>
  JSON.parse(unmeasured(JSON.stringify(messages).replaceAll(id, '<session>'))) as Message[]
/** The duration the first invocation was given while the server ran, read from a result frame. */
const firstDuration = (messages: Message[]) =>
  messages.map((m) => m.data as Record<string, any>).find((d) => d?.metric_name === 'invocation_duration_v1')?.score

describe.each(['node', 'deno'] as const)('kill -9 and restart on the same EVALSTREAM_DB: %s', (runtime) => {
  let stub: GeminiStub
  let server: ServerProcess
  let env: Record<string, string>
  const api = apiClient(() => ({ baseUrl: server.baseUrl, agentUrl: '', agentRequests: () => [] }))
  const judgeCalls = () => stub.requests.filter((r) => r.kind === 'generateContent').length
  const snapshot = async (id: string) => (await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any

  beforeAll(async () => {
    stub = await startGeminiStub()
    stub.handle(() => ({ candidates: [VALID] }))
    const db = join(mkdtempSync(join(tmpdir(), 'evalstream-kill-')), 'evalstream.db')
    env = { EVALSTREAM_DB: db, GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: stub.url }
    server = await startServer(runtime, env)
  })
  afterAll(async () => {
    if (server?.child.exitCode === null) await kill9(server)
    await stub?.close()
  })

  async function untilJudged(id: string, invocation: number): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if ((await snapshot(id)).invocations?.[invocation]?.results?.final_response_match_v2) return
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`invocation ${invocation} was never judged`)
  }

  it('loses no event, duplicates no result, re-sends no answered judge call', async () => {
    // The reference: the same inputs, never interrupted.
    const ref = uniqueId('ref')
    await api.create({ session_id: ref, eval_config: CONFIG, eval_case: CASE })
    await api.events(ref, JSON.stringify(turn('e-first')), 'application/json')
    await untilJudged(ref, 0)
    await api.events(ref, JSON.stringify(turn('e-second')), 'application/json')
    const refResult = await (await api.end(ref)).json()
    const refMessages = await readSse(await api.results(ref))

    const id = uniqueId('killed')
    expect((await api.create({ session_id: id, eval_config: CONFIG, eval_case: CASE })).res.status).toBe(201)
    const accepted = await (await api.events(id, JSON.stringify(turn('e-first')), 'application/json')).json()
    expect(accepted).toEqual({ accepted: WEATHER_EVENTS.length, rejected: [] })
    await untilJudged(id, 0)
    const callsBefore = judgeCalls()
    const lastSeq = (await snapshot(id)).last_seq as number
    const before = await readSse(await api.results(id), (_m, all) => all.length >= lastSeq)

    await kill9(server)
    server = await startServer(runtime, env)
    expect(server.child.exitCode).toBe(null)

    // Rebuilt by replay: the same results, and the judge answer came from the database.
    const after = await snapshot(id)
    expect(after.last_seq).toBe(lastSeq)
    expect(judgeCalls()).toBe(callsBefore)
    await api.events(id, JSON.stringify(turn('e-second')), 'application/json')
    const caseResult = await (await api.end(id)).json()
    const all = await readSse(await api.results(id))

    expect(all.slice(0, before.length)).toEqual(before)
    expect(all.map((m) => Number(m.id))).toEqual(all.map((_, i) => i + 1))
    expect(normalise(all, id)).toEqual(normalise(refMessages, ref))
    expect(unmeasured(JSON.stringify(caseResult).replaceAll(id, '<session>'))).toBe(
      unmeasured(JSON.stringify(refResult).replaceAll(ref, '<session>')),
    )
    // The replay timed the first invocation with the journaled arrival times, not the replay's own.
    const measured = firstDuration(before)
    expect(typeof measured).toBe('number')
    const perInvocation = (caseResult as any).eval_metric_result_per_invocation[0].eval_metric_results
    expect(perInvocation.find((m: any) => m.metric_name === 'invocation_duration_v1').score).toBe(measured)
    expect((caseResult as any).final_eval_status).toBe(1)
    // One judge call for the second invocation only.
    expect(judgeCalls()).toBe(callsBefore + 1)
  }, 120_000)
})

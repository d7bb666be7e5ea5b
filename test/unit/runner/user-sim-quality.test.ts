/**
 * per_turn_user_simulator_quality_v1 as ADK scores it, judged through the REAL @google/genai SDK
 * against the loopback Gemini stub: turn 1 is the starting prompt (no judge), later turns get an
 * `"is_valid"` majority vote (ties invalid, unreadable samples no score), the stop-signal turn
 * replaces the last turn only when it FAILS, and the overall is the PASSED turns' scores over all
 * turns. Once through a simulated run (runEvalSets), the rest on the engine directly.
 * Covers: src/core/criteria/per-turn-user-simulator-quality/.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EvalSet } from '../../../src/adk/eval-set.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import { judgedEngines, judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { runEvalSets } from '../../../src/runner/index.ts'
import { type GeminiStub, type RecordedRequest, startGeminiStub } from '../../support/gemini-stub.ts'
import { FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const METRIC = 'per_turn_user_simulator_quality_v1'
const START = 'What is the weather in Paris?'
const PLAN = 'Ask for the weather in Paris, then for the time there.'
const VALID = '{"criteria": [{"name": "FOLLOWS_PLAN", "reasoning": "ok", "passes": true}], "is_valid": true}'
const INVALID = '{"criteria": [], "is_valid": false}'

let gemini: GeminiStub
beforeEach(async () => {
  gemini = await startGeminiStub()
})
afterEach(() => gemini.close())

const isJudge = (r: RecordedRequest) => r.body?.systemInstruction !== undefined
const judgePrompt = (r: RecordedRequest): string => r.body.contents[0].parts[0].text
const judgeSystem = (r: RecordedRequest): string => r.body.systemInstruction.parts[0].text
const judged = (message: string) => (r: RecordedRequest) =>
  isJudge(r) && judgePrompt(r).includes(`<next_user_message>\n${message}\n</next_user_message>`)

/** Judge replies by the message judged: each a list of sample texts. */
function judgeSays(byMessage: Record<string, string[]>, simulator: string[] = []) {
  let next = 0
  gemini.handle((r) => {
    if (!isJudge(r)) return { candidates: [simulator[Math.min(next++, simulator.length - 1)]!] }
    const message = /<next_user_message>\n([\s\S]*)\n<\/next_user_message>/.exec(judgePrompt(r))![1]!
    const samples = byMessage[message] ?? [VALID]
    return { candidates: samples.slice(0, r.body.generationConfig?.candidateCount ?? 1) }
  })
}

const wiring = () => {
  const w = judgeWiringFromEnv({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url })
  if (!w.ok) throw new Error(w.error)
  return w
}

describe('per_turn_user_simulator_quality_v1 on a simulated run', () => {
  let agent: StubAgent
  beforeEach(async () => {
    agent = await startStubAgent()
  })
  afterEach(() => agent.close())

  async function run(stopVotes: string[]) {
    judgeSays({ 'And the time?': [VALID, VALID, VALID], '</finished>': stopVotes }, ['And the time?', 'Thanks! </finished>'])
    const w = wiring()
    const evalSet = EvalSet.parse({
      eval_set_id: 'q',
      eval_cases: [{ eval_id: 'c', conversation_scenario: { starting_prompt: START, conversation_plan: PLAN, user_persona: 'EXPERT' } }],
    })
    const evalConfig = { criteria: { [METRIC]: { threshold: 0.8, judge_model_options: { num_samples: 3 } } } }
    const report = await runEvalSets([{ evalSet, evalConfig }], {
      agent: { url: agent.url, app: 'a' },
      createEngine: judgedEngines(w.value.judging),
      simulator: w.value.executor,
    })
    if (!report.ok) throw new Error(report.error)
    const outcome = report.sets[0]!.cases[0]!.runs[0]!
    const perTurn = outcome.caseResult.eval_metric_result_per_invocation.map((p) => p.eval_metric_results[0]!.score)
    return { outcome, perTurn, overall: outcome.caseResult.overall_eval_metric_results[0]! }
  }

  it('a good conversation: every turn valid, the ending right: 1.0 PASSED; the judge sees plan, history and persona', async () => {
    const { perTurn, overall } = await run([VALID, VALID, VALID])
    expect(perTurn).toEqual([1, 1])
    expect(overall).toMatchObject({ score: 1, eval_status: 'PASSED' })
    const turn = gemini.requests.find(judged('And the time?'))!
    expect(judgePrompt(turn)).toContain(`<conversation_plan>\n${PLAN}\n</conversation_plan>`)
    expect(judgePrompt(turn)).toContain(`<conversation_history>\nuser: ${START}\n\nmodel: ${FINAL_TEXT}\n</conversation_history>`)
    expect(judgeSystem(turn)).toContain('The user asks again for something already done') // EXPERT's violation rubrics
    expect(turn.body.generationConfig.candidateCount).toBe(3)
    const stop = gemini.requests.find(judged('</finished>'))!
    expect(judgePrompt(stop)).toContain(
      `user: ${START}\n\nmodel: ${FINAL_TEXT}\n\nuser: And the time?\n\nmodel: ${FINAL_TEXT}\n</conversation_history>`,
    )
  })

  it('an ending the judge FAILS replaces the last turn (emitted as a revision): (1 + 0) / 2, FAILED', async () => {
    const { outcome, perTurn, overall } = await run([INVALID, VALID, INVALID])
    expect(perTurn).toEqual([1, 0])
    expect(overall).toMatchObject({ score: 0.5, eval_status: 'FAILED' })
    const last = outcome.results.filter((r) => r.invocation_index === 1 && r.metric_name === 'per_turn_user_simulator_quality_v1')
    expect(last.map((r) => [r.score, r.revision])).toEqual([
      [1, undefined],
      [0, 1],
    ])
    expect(last[1]!.details).toMatchObject({ turn: 'stop_signal', sample_scores: [0, 1, 0] })
  })
})

/** A finished conversation as events: per turn, the user's message and the agent's answer. */
function conversation(userTexts: string[]) {
  const lines = userTexts.flatMap((text, i) => [
    { invocationId: `inv-${i}`, author: 'user', content: { role: 'user', parts: [{ text }] } },
    { invocationId: `inv-${i}`, author: 'agent', content: { role: 'model', parts: [{ text: `answer ${i}` }] } },
  ])
  return decodeAll('ndjson', lines.map((l) => JSON.stringify(l)).join('\n')).events
}

async function score(userTexts: string[], options: { judge?: boolean; scenario?: boolean; threshold?: number } = {}) {
  const emitted: EngineEmission[] = []
  const evalCase = options.scenario === false
    ? { eval_id: 'c', conversation: [] }
    : { eval_id: 'c', conversation_scenario: { starting_prompt: START, conversation_plan: PLAN } }
  const w = wiring()
  const judging = options.judge === false ? {} : w.value.judging('s')
  const created = createSessionEngine({
    spec: {
      session_id: 's',
      eval_config: { criteria: { [METRIC]: { threshold: options.threshold ?? 1, judge_model_options: { num_samples: 3 } } } },
      eval_case: evalCase,
    },
    emit: (b) => emitted.push(b),
    ...judging,
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const e of conversation(userTexts)) created.engine.push(e)
  const result = await created.engine.end()
  return {
    perTurn: result.eval_metric_result_per_invocation.map((p) => p.eval_metric_results[0]!.score),
    overall: result.overall_eval_metric_results[0]!,
    reasons: emitted.flatMap((e) => (e.type === 'criterion.result' && e.data.reason ? [e.data.reason as string] : [])),
  }
}

describe('per_turn_user_simulator_quality_v1 scoring rules', () => {
  it('turn 1 is 1 only for the starting prompt (trimmed); ties vote invalid; Python-style True reads; unreadable turns count as not passed', async () => {
    judgeSays({
      'Time please': ['{"is_valid": True}', 'no label here', '{"is_valid": "false"}'], // 1 vs 1: a tie is invalid
      'And tomorrow?': ['{"is_valid": True,\n}', '{"is_valid": True}', INVALID], // majority valid
      'Bye': ['nothing', 'still nothing', 'no'], // no label: no score, but the turn counts
    })
    const r = await score([`  ${START}\n`, 'Time please', 'And tomorrow?', 'Bye'], { threshold: 0.5 })
    expect(r.perTurn).toEqual([1, 0, 1, null])
    expect(r.overall).toMatchObject({ score: 0.5, eval_status: 'PASSED' })

    const wrongStart = await score(['Something else', 'Time please'], { threshold: 0.5 })
    expect(wrongStart.perTurn[0]).toBe(0)
  })

  it('a turn scored below the threshold is not PASSED and adds nothing, even with a score', async () => {
    judgeSays({ 'Time please': [VALID, VALID, VALID] })
    // threshold 1.5: no turn can pass, so the overall is 0 / 2 (as ADK's sum over PASSED turns gives).
    const r = await score([START, 'Time please'], { threshold: 1.5 })
    expect(r.perTurn).toEqual([1, 1])
    expect(r.overall).toMatchObject({ score: 0, eval_status: 'FAILED' })
  })

  it('no judge configured: NOT_EVALUATED with the reason, even for a one-turn conversation (its ending needs the judge)', async () => {
    for (const turns of [[START], [START, 'Time please']]) {
      const r = await score(turns, { judge: false })
      expect(r.overall).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
      expect(r.reasons.at(-1)).toMatch(/no judge configured/)
    }
    expect(gemini.requests).toHaveLength(0)
  })

  it('a case without a conversation_scenario is NOT_EVALUATED with the reason, no judge call', async () => {
    const r = await score(['hi'], { scenario: false })
    expect(r.overall).toMatchObject({ score: null, eval_status: 'NOT_EVALUATED' })
    expect(r.reasons[0]).toMatch(/no conversation_scenario/)
    expect(gemini.requests).toHaveLength(0)
  })
})

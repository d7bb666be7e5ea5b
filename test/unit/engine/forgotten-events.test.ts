/**
 * A completed invocation lets its events go when the host keeps them (`EngineOptions.conversation`),
 * and reads them back for a late event, the case result and a closing step: the scores are those of
 * an engine that kept every event, and a metric that reads earlier invocations keeps them.
 * Covers: src/engine/conversation.ts, src/engine/session-engine.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import type { AdkEvent } from '../../../src/adk/event.ts'
import type { EvalCaseResult } from '../../../src/adk/results.ts'
import { ask, call, decodedEvents, expectedTurn, say } from '../../support/city-turns.ts'

const CITY = ['Paris', 'Lima', 'Oslo']
const spec = (criteria: Record<string, unknown>) => ({
  session_id: 's1',
  eval_case: { eval_id: 'three', conversation: CITY.map((city, k) => expectedTurn(k, city)) },
  eval_config: { criteria },
})
const CRITERIA = { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 }

type Run = { emitted: EngineEmission[]; caseResult: EvalCaseResult; reads: number }

/**
 * Feeds the events as a host does: each is kept (the journal) before the engine is given it. With
 * `journaled`, the engine may read them back; `reads` counts how often it did.
 */
async function run(list: object[], journaled: boolean, criteria: Record<string, unknown> = CRITERIA): Promise<Run> {
  const emitted: EngineEmission[] = []
  const journal: AdkEvent[] = []
  let reads = 0
  const conversation = () => {
    reads += 1
    // A fresh copy each time, as a journal read decodes anew: nothing may rely on object identity.
    return journal.map((e) => structuredClone(e))
  }
  const created = createSessionEngine({
    spec: spec(criteria),
    emit: (body) => emitted.push(body),
    ...(journaled ? { conversation } : {}),
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const item of decodedEvents(list)) {
    journal.push(item.event)
    created.engine.push(item)
  }
  const caseResult = await created.engine.end()
  return { emitted, caseResult, reads }
}

const invocation = (k: number) => [
  ask(`i${k}`, `Weather in ${CITY[k]}?`),
  call(`i${k}`, 'get_weather', CITY[k]!),
  call(`i${k}`, 'get_time', CITY[k]!),
  say(`i${k}`, `In ${CITY[k]} it is sunny and 21C.`),
]

describe('a completed invocation lets its events go when the host can read them back', () => {
  it('scores, results and the case result are those of an engine that kept everything', async () => {
    const list = [...invocation(0), ...invocation(1), ...invocation(2)]
    const kept = await run(list, false)
    const forgot = await run(list, true)
    expect(forgot.emitted).toEqual(kept.emitted)
    expect(forgot.caseResult).toEqual(kept.caseResult)
    // The two completed invocations' events were let go: the case result read them back, once.
    expect(forgot.reads).toBe(1)
    expect(forgot.caseResult.eval_metric_result_per_invocation).toHaveLength(3)
    expect(forgot.caseResult.eval_metric_result_per_invocation[0]!.actual_invocation.user_content?.parts?.[0]?.text).toBe(
      'Weather in Paris?',
    )
  })

  it('a late event of a forgotten invocation reads its events back and reopens it as if they had been kept', async () => {
    const [q0, w0, t0, a0] = invocation(0) as [object, object, object, object]
    // Invocation 0 answers before its second call; the call and a new answer come after 1 and 2 started.
    const list = [q0, w0, say('i0', 'In Paris'), ...invocation(1), ...invocation(2), t0, a0]
    const kept = await run(list, false)
    const forgot = await run(list, true)
    expect(forgot.emitted).toEqual(kept.emitted)
    expect(forgot.caseResult).toEqual(kept.caseResult)
    // The late event read invocation 0 back (one read) and so did the end (the second).
    expect(forgot.reads).toBe(2)
    const revised = forgot.emitted.filter((e) => {
      const data = e.data as { invocation_index?: number; metric_name?: string; revision?: number }
      return e.type === 'criterion.result' && data.invocation_index === 0 && data.metric_name === 'tool_trajectory_avg_score'
    })
    // First scored on one call of two (0), then revised with both (1).
    expect(revised.map((e) => (e.data as { score: number }).score)).toEqual([0, 1])
  })

  it('only the events pushed before the late one are read back: a journal already holding more changes nothing', async () => {
    const list = [...invocation(0), ...invocation(1), say('i0', 'In Paris it is sunny and 21C.')]
    const emitted: EngineEmission[] = []
    const all = decodedEvents(list)
    // The whole journal is there from the start, as during a replay.
    const created = createSessionEngine({ spec: spec(CRITERIA), emit: (b) => emitted.push(b), conversation: () => all.map((i) => i.event) })
    if (!created.ok) throw new Error(created.problem.detail)
    for (const item of all) created.engine.push(item)
    const caseResult = await created.engine.end()
    const kept = await run(list, false)
    expect(emitted).toEqual(kept.emitted)
    expect(caseResult).toEqual(kept.caseResult)
  })

  it('a session scoring a metric that reads earlier invocations while it runs keeps them', async () => {
    const criteria = { per_turn_user_simulator_quality_v1: { threshold: 1, judge_model_options: { judge_model: 'gemini-2.5-flash' } } }
    const list = [...invocation(0), ...invocation(1), ...invocation(2)]
    const forgot = await run(list, true, criteria)
    expect(forgot.reads).toBe(0)
    expect(forgot.caseResult.eval_metric_result_per_invocation).toHaveLength(3)
  })
})

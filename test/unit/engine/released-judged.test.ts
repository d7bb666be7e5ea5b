/**
 * Judge work in flight when its invocation is released (a newer one started) needs no criterion run:
 * its answer still becomes the invocation's result. A late event for that invocation rebuilds the
 * runs and judges again; the answer to the superseded call is dropped. The judge is an in-process
 * runner whose answers the test hands out, so nothing depends on timing.
 * Covers: src/engine/session-engine.ts, src/engine/invocation-state.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { JudgeRunner } from '../../../src/engine/metric-run.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import type { JudgeAnswer, JudgeRequest } from '../../../src/core/criterion.ts'
import { decodeAll } from '../../../src/ingest/index.ts'

const expected = (city: string) => ({
  user_content: { role: 'user', parts: [{ text: `Weather in ${city}?` }] },
  final_response: { role: 'model', parts: [{ text: `Sunny in ${city}.` }] },
})
const spec = {
  session_id: 'judged-release',
  eval_case: { eval_id: 'two', conversation: [expected('Paris'), expected('Lima')] },
  eval_config: { criteria: { final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } } },
}
const verdict = (valid: boolean) => JSON.stringify({ reasoning: 'r', is_the_agent_response_valid: valid ? 'valid' : 'invalid' })
const say = (inv: string, text: string) =>
  decodeAll('ndjson', JSON.stringify({ invocationId: inv, author: 'a', content: { role: 'model', parts: [{ text }] } }) + '\n').events[0]!

/** A judge whose calls wait until the test answers them, in the order they were made. */
function heldJudge() {
  const calls: Array<{ requests: JudgeRequest[]; answer(valid: boolean): void }> = []
  const judge: JudgeRunner = (requests) =>
    new Promise<JudgeAnswer[]>((resolve) => {
      calls.push({ requests, answer: (valid) => resolve(requests.map((r) => ({ id: r.id, samples: [{ text: verdict(valid) }] }))) })
    })
  return { judge, calls }
}

function judgedResults(emitted: EngineEmission[]) {
  return emitted
    .filter((e) => e.type === 'criterion.result')
    .map((e) => e.data as { invocation_index: number; metric_name: string; score: number | null; revision?: number })
    .filter((d) => d.metric_name === 'final_response_match_v2')
    .map((d) => [d.invocation_index, d.score, d.revision ?? 0])
}

describe('judging an invocation that was released meanwhile', () => {
  it('the answer becomes its result after a newer invocation started', async () => {
    const { judge, calls } = heldJudge()
    const emitted: EngineEmission[] = []
    const created = createSessionEngine({ spec, emit: (b) => emitted.push(b), judge })
    if (!created.ok) throw new Error(created.problem.detail)
    created.engine.push(say('i0', 'Sunny in Paris.'))
    expect(calls).toHaveLength(1)
    created.engine.push(say('i1', 'Sunny in Lima.')) // i0 is released: its runs are dropped
    calls[0]!.answer(true)
    calls[1]!.answer(false)
    await created.engine.judgesSettled!()
    expect(judgedResults(emitted)).toEqual([[0, 1, 0], [1, 0, 0]])
  })

  it('a late event judges it again; the answer to the superseded call is dropped', async () => {
    const { judge, calls } = heldJudge()
    const emitted: EngineEmission[] = []
    const created = createSessionEngine({ spec, emit: (b) => emitted.push(b), judge })
    if (!created.ok) throw new Error(created.problem.detail)
    created.engine.push(say('i0', 'Rain in Paris.'))
    created.engine.push(say('i1', 'Sunny in Lima.'))
    created.engine.push(say('i0', 'Sunny in Paris.')) // late: i0 reopens with rebuilt runs and completes again
    expect(calls).toHaveLength(3)
    expect(calls[2]!.requests[0]!.prompt).toContain('Sunny in Paris.')
    calls[0]!.answer(false) // superseded by the late event
    calls[1]!.answer(true)
    calls[2]!.answer(true)
    await created.engine.judgesSettled!()
    expect(judgedResults(emitted)).toEqual([[1, 1, 0], [0, 1, 1]])
  })
})

import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { CriterionResultData } from '../../../src/engine/types.ts'

const CASE = {
  eval_id: 'c',
  conversation: [{
    invocation_id: 'x',
    user_content: { parts: [{ text: 'Hi' }] },
    final_response: { parts: [{ text: 'Hello there' }] },
    intermediate_data: { tool_uses: [] },
  }],
}
const CONFIG = { criteria: { response_match_score: 0.8, tool_trajectory_avg_score: 1.0 } }
const EVENTS = [
  { invocation_id: 'e-1', author: 'user', content: { parts: [{ text: 'Hi' }] } },
  { invocation_id: 'e-1', author: 'agent', content: { role: 'model', parts: [] } },
]

async function run(unscorable?: (id: string) => ReadonlyMap<string, string> | undefined, events: readonly object[] = EVENTS) {
  const results: CriterionResultData[] = []
  const progress: string[] = []
  const created = createSessionEngine({
    spec: { session_id: 's', eval_config: CONFIG, eval_case: CASE },
    emit: (b) => {
      if (b.type === 'criterion.result') results.push(b.data as CriterionResultData)
      if (b.type === 'criterion.progress') progress.push(b.data.metric_name)
    },
    ...(unscorable ? { unscorable } : {}),
  })
  if (!created.ok) throw new Error(created.problem.detail)
  events.forEach((event, index) => created.engine.push({ index, event, raw: event as never }))
  const caseResult = await created.engine.end()
  return { results, caseResult, progress }
}

describe('engine: metrics the host rules out on an invocation', () => {
  it('reports them NOT_EVALUATED with the reason and scores the others as before', async () => {
    const asked: string[] = []
    const { results, caseResult } = await run((
      id,
    ) => (asked.push(id), new Map([['response_match_score', 'final response unknown: content off']])))
    expect(new Set(asked)).toEqual(new Set(['e-1']))
    expect(results.find((r) => r.metric_name === 'response_match_score')).toMatchObject({
      score: null,
      eval_status: 'NOT_EVALUATED',
      reason: 'final response unknown: content off',
    })
    expect(results.find((r) => r.metric_name === 'tool_trajectory_avg_score')).toMatchObject({ score: 1, eval_status: 'PASSED' })
    expect(caseResult.final_eval_status).not.toBe('FAILED')
    // Without the option the same events fail response_match_score (nothing to compare is a 0).
    const plain = await run()
    expect(plain.results.find((r) => r.metric_name === 'response_match_score')).toMatchObject({ score: 0, eval_status: 'FAILED' })
  })

  it('emits no early verdict for a ruled-out metric, and still does for the others', async () => {
    // An unexpected call: EXACT trajectory matching fails it as soon as it is seen.
    const withCall = [EVENTS[0]!, {
      invocation_id: 'e-1',
      author: 'agent',
      content: { role: 'model', parts: [{ function_call: { name: 'lookup', args: {} } }] },
    }, { invocation_id: 'e-1', author: 'agent', content: { role: 'model', parts: [{ text: 'Hello there' }] } }]
    expect((await run(undefined, withCall)).progress).toContain('tool_trajectory_avg_score')
    const ruledOut = await run(() => new Map([['tool_trajectory_avg_score', 'tool arguments unknown: content off']]), withCall)
    expect(ruledOut.progress).not.toContain('tool_trajectory_avg_score')
    expect(ruledOut.results.find((r) => r.metric_name === 'tool_trajectory_avg_score')).toMatchObject({ eval_status: 'NOT_EVALUATED' })
  })
})

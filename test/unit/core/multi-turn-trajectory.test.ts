/**
 * rubric_based_multi_turn_trajectory_quality_v1. Vectors written from the facts in
 * /work/shared/spec/adk-newer-metrics.md §1.4 (ADK's rubric_based_multi_turn_trajectory_evaluator.py):
 * the numbered conversation lines, instructions and tool lines per agent deduplicated in order,
 * properties as a JSON array of {id, property, type?}, criterion rubrics plus invocation rubrics of
 * type TRAJECTORY_QUALITY, a majority vote per rubric with ties negative, turns 1..n-1
 * NOT_EVALUATED and the last turn (and the case) carrying score, status and rubric scores.
 * Then a live session through the engine, its verdict going out when the session ends.
 * Covers: src/core/criteria/rubric-multi-turn-trajectory-quality/.
 */
import { describe, expect, it } from 'vitest'
import { Invocation } from '../../../src/adk/invocation.ts'
import {
  conversationText,
  instructionsText,
  toolsText,
} from '../../../src/core/criteria/rubric-multi-turn-trajectory-quality/conversation.ts'
import { criterionByName } from '../../../src/core/registry.ts'
import { parseIdBlocks, readIdBlocks } from '../../../src/core/criteria/rubric-multi-turn-trajectory-quality/answer-text.ts'
import type { JudgeAnswer, JudgeRequest } from '../../../src/core/criterion.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { decodeAll } from '../../../src/ingest/index.ts'

const NAME = 'rubric_based_multi_turn_trajectory_quality_v1'
const tools = [{
  function_declarations: [{ name: 'get_weather', description: 'Weather for a city.' }, { name: 'get_time', description: 'Local time.' }],
}]
const appDetails = {
  agent_details: {
    weather: { name: 'weather', instructions: 'Answer weather questions with the tools.', tool_declarations: tools },
  },
}
const turn1 = Invocation.parse({
  invocation_id: 'i1',
  user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
  final_response: { role: 'model', parts: [{ text: 'Sunny, 21C.' }] },
  intermediate_data: {
    invocation_events: [
      { author: 'weather', content: { role: 'model', parts: [{ function_call: { name: 'get_weather', args: { city: 'Paris' } } }] } },
      { author: 'weather', content: { role: 'user', parts: [{ function_response: { name: 'get_weather', response: { temp: 21 } } }] } },
    ],
  },
  app_details: appDetails,
})
const turn2 = Invocation.parse({
  invocation_id: 'i2',
  user_content: { role: 'user', parts: [{ text: 'And the time?' }] },
  final_response: { role: 'model', parts: [{ text: 'It is 10:30.' }] },
  app_details: appDetails,
})

describe('what the judge sees (spec §1.4 Inputs)', () => {
  it('numbered USER/AGENT (author) lines with tool calls and outputs, then the final response', () => {
    expect(conversationText([turn1, turn2])).toBe(
      [
        'USER TURN 1: Weather in Paris?',
        'AGENT (weather) TURN 1 (tool call): get_weather({"city":"Paris"})',
        'AGENT (weather) TURN 1 (tool output): get_weather -> {"temp":21}',
        'AGENT (weather) TURN 1: Sunny, 21C.',
        'USER TURN 2: And the time?',
        // No events: the final response's author is "agent".
        'AGENT (agent) TURN 2: It is 10:30.',
      ].join('\n'),
    )
  })

  it('instructions and tools per agent, deduplicated in order over every invocation', () => {
    expect(instructionsText([turn1, turn2])).toBe('Agent weather Instructions:\nAnswer weather questions with the tools.')
    expect(toolsText([turn1, turn2])).toBe('Agent: weather\n- get_weather: Weather for a city.\n- get_time: Local time.')
  })
})

const rubric = (id: string, text: string, type?: string) => ({
  rubric_id: id,
  rubric_content: { text_property: text },
  ...(type ? { type } : {}),
})
const verdicts = (v: Record<string, 'yes' | 'no'>) =>
  JSON.stringify({
    properties: Object.entries(v).map(([rubric_id, verdict]) => ({ rubric_id, property: rubric_id, rationale: 'r', verdict })),
  })

/** A live two-turn session; `answer` plays the judge. Resolves with every result and the requests sent. */
async function liveSession(answer: (request: JudgeRequest) => string[], caseRubrics: object[] = []) {
  const requests: JudgeRequest[] = []
  const emitted: { type: string; data: any }[] = []
  const config = {
    criteria: {
      [NAME]: {
        threshold: 0.6,
        rubrics: [rubric('grounded', 'The agent bases every answer on a tool output.')],
        judge_model_options: { num_samples: 3 },
      },
    },
  }
  const evalCase = {
    eval_id: 'live',
    conversation: [
      { user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] } },
      { user_content: { role: 'user', parts: [{ text: 'And the time?' }] }, rubrics: caseRubrics },
    ],
  }
  const created = createSessionEngine({
    spec: { session_id: 'live', eval_config: config, eval_case: evalCase },
    emit: (b) => void emitted.push(b as { type: string; data: any }),
    judge: async (batch): Promise<JudgeAnswer[]> => {
      requests.push(...batch)
      return batch.map((r) => ({ id: r.id, via: 'test', samples: answer(r).map((text) => ({ text })) }))
    },
  })
  if (!created.ok) throw new Error(created.problem.detail)
  const events = [
    { invocationId: 'i1', author: 'user', content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] } },
    {
      invocationId: 'i1',
      author: 'weather',
      content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
    },
    {
      invocationId: 'i1',
      author: 'weather',
      content: { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] },
    },
    { invocationId: 'i1', author: 'weather', content: { role: 'model', parts: [{ text: 'Sunny, 21C.' }] } },
    { invocationId: 'i2', author: 'user', content: { role: 'user', parts: [{ text: 'And the time?' }] } },
    { invocationId: 'i2', author: 'weather', content: { role: 'model', parts: [{ text: 'It is 10:30.' }] } },
  ]
  for (const e of decodeAll('json', JSON.stringify(events)).events) created.engine.push(e)
  await created.engine.judgesSettled?.()
  const beforeEnd = requests.length
  const caseResult = await created.engine.end()
  const results = emitted.filter((e) => e.type === 'criterion.result' && e.data.metric_name === NAME).map((e) => e.data)
  return { requests, beforeEnd, results, caseResult: caseResult as any }
}

describe("the judge's text answer (spec §1.4: ID, Property, Rationale, Verdict per property)", () => {
  const rubrics = [rubric('grounded', 'The agent bases every answer on a tool output.'), rubric('polite', 'The agent is polite.')]
  it('matches by ID first, by property text when a block has no ID line, without shifting later blocks', () => {
    const text = [
      'STEP 1: ...',
      'ID: grounded',
      'Property: (paraphrased by the judge)',
      'Rationale: TURN 1 calls get_weather before answering.',
      'Verdict: yes',
      '',
      'Property: The agent is polite.',
      'Rationale: TURN 2 is curt.',
      'Verdict: no',
    ].join('\n')
    expect(readIdBlocks(text, rubrics)).toEqual([
      { rubric_id: 'grounded', rationale: 'TURN 1 calls get_weather before answering.', score: 1 },
      { rubric_id: 'polite', rationale: 'TURN 2 is curt.', score: 0 },
    ])
    expect(parseIdBlocks(text)).toHaveLength(2)
  })

  it('an unknown ID falls back to the property text; a block without a verdict scores nothing', () => {
    const text = 'ID: 7\nProperty: The agent is polite.\nRationale: fine\nVerdict: Yes.\nID: grounded\nProperty: x\nRationale: cut off'
    expect(readIdBlocks(text, rubrics)).toEqual([{ rubric_id: 'polite', rationale: 'fine', score: 1 }])
  })
})

describe('a live session', () => {
  it('turns carry no verdict until the session ends; then the last turn and the case carry it', async () => {
    const { requests, beforeEnd, results, caseResult } = await liveSession(
      () => [verdicts({ grounded: 'yes' }), verdicts({ grounded: 'yes' })],
    )
    expect(beforeEnd).toBe(0)
    expect(requests).toHaveLength(1)
    expect(requests[0]?.samples).toBe(3)
    expect(requests[0]?.prompt).toContain('USER TURN 2: And the time?')
    expect(requests[0]?.prompt).toContain('AGENT (weather) TURN 1 (tool call): get_weather({"city":"Paris"})')
    // The properties go in as a JSON array of {id, property, type?}.
    expect(requests[0]?.prompt).toContain('"id": "grounded"')
    const byTurn = results.map((r) => [r.invocation_index, r.score, r.eval_status])
    expect(byTurn).toContainEqual([0, null, 'NOT_EVALUATED'])
    expect(byTurn.at(-1)).toEqual([1, 1, 'PASSED'])
    const overall = caseResult.overall_eval_metric_results.find((m: { metric_name: string }) => m.metric_name === NAME)
    expect([overall.score, overall.eval_status, overall.details.rubric_scores]).toEqual([1, 'PASSED', [{
      rubric_id: 'grounded',
      rationale: 'r',
      score: 1,
    }]])
  })

  it("the last turn's TRAJECTORY_QUALITY rubrics join the criterion's; others are ignored; a 1-1 tie is negative", async () => {
    const caseRubrics = [
      rubric('recovers', 'The agent recovers from tool errors.', 'TRAJECTORY_QUALITY'),
      rubric('brief', 'Answers are brief.', 'FINAL_RESPONSE_QUALITY'),
    ]
    const { requests, results } = await liveSession(
      () => [verdicts({ grounded: 'yes', recovers: 'no' }), verdicts({ grounded: 'yes', recovers: 'yes' }), 'no properties here'],
      caseRubrics,
    )
    expect(requests[0]?.prompt).toContain('"type": "TRAJECTORY_QUALITY"')
    expect(requests[0]?.prompt).not.toContain('Answers are brief.')
    const last = results.at(-1)
    // grounded: yes, yes -> 1; recovers: no, yes -> tie -> 0; mean 0.5 < 0.6.
    expect([last.score, last.eval_status]).toEqual([0.5, 'FAILED'])
    expect(last.details.rubric_scores.map((r: any) => [r.rubric_id, r.score])).toEqual([
      ['grounded', 1],
      ['recovers', 0],
    ])
  })

  it('text answers in the ID/Property/Rationale/Verdict format vote too', async () => {
    const text = (v: string) => `ID: grounded\nProperty: grounded answers\nRationale: see TURN 1\nVerdict: ${v}`
    const { results } = await liveSession(() => [text('yes'), text('no'), text('yes')])
    expect(results.at(-1)).toMatchObject({ score: 1, eval_status: 'PASSED' })
  })

  it('is in the registry: no longer answered "not implemented"', () => {
    expect(criterionByName(NAME)?.judged).toBe(true)
  })
})

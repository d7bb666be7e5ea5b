/**
 * The result stream's schemas are the one declaration of the wire protocol: everything a real
 * session emits (streamed text, an early EXACT failure, a rejected event, the case result in ADK's
 * file shape) parses with them, and a record that breaks the protocol is refused with its path.
 */
import { describe, expect, it } from 'vitest'
import { evalCaseResultValue } from '../../../src/adk/results-json.ts'
import { RESULT_DATA, ResultEvent, ResultEventBody } from '../../../src/engine/result-events.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { readShared } from '../../support/shared-data.ts'

const WEATHER_CASE = {
  eval_id: 'paris',
  conversation: [
    {
      invocation_id: 'expected-1',
      user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'In Paris it is sunny, 21C, and the time is 10:30.' }] },
      // get_time first: the agent's get_weather diverges, so EXACT reports its failure early.
      intermediate_data: { tool_uses: [{ name: 'get_time', args: { city: 'Paris' } }, { name: 'get_weather', args: { city: 'Paris' } }] },
    },
  ],
}

async function emittedBySession(): Promise<EngineEmission[]> {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({
    spec: { session_id: 's1', eval_case: WEATHER_CASE },
    emit: (b) => emitted.push(b),
    clock: () => emitted.length,
  })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const item of decodeAll('sse', readShared('samples', 'adk-js-weather-streaming.sse')).events) created.engine.push(item)
  created.engine.reject({ index: 99, message: 'content: expected an object', path: '$.content' })
  await created.engine.end()
  return emitted
}

describe('the result protocol', () => {
  it('parses every record a real session emits, of every type', async () => {
    const emitted = await emittedBySession()
    const bodies = emitted.map((e) => (e.type === 'case.result' ? { ...e, data: evalCaseResultValue(e.data) } : e))
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(Object.keys(RESULT_DATA)))
    for (const [i, body] of bodies.entries()) {
      const parsed = ResultEvent.safeParse({ seq: i + 1, ...body })
      expect(parsed.success, `${body.type} ${body.key}: ${parsed.error?.message}`).toBe(true)
    }
  })

  it('refuses a record that breaks the protocol, saying where', () => {
    const unknownType = ResultEventBody.safeParse({ type: 'criterion.guess', key: 'k', data: {} })
    expect(unknownType.success).toBe(false)
    expect(unknownType.error?.issues[0]?.path).toEqual(['type'])
    const noMetric = ResultEventBody.safeParse({
      type: 'criterion.result',
      key: 'k',
      data: { invocation_id: 'e', invocation_index: 0, score: 1, threshold: 1, eval_status: 'PASSED', details: {} },
    })
    expect(noMetric.success).toBe(false)
    expect(noMetric.error?.issues[0]?.path).toEqual(['data', 'metric_name'])
    const badStatus = ResultEventBody.safeParse({
      type: 'criterion.result',
      key: 'k',
      data: { invocation_id: 'e', invocation_index: 0, metric_name: 'm', score: 1, threshold: 1, eval_status: 'GREAT', details: {} },
    })
    expect(badStatus.error?.issues[0]?.path).toEqual(['data', 'eval_status'])
    expect(ResultEvent.safeParse({ type: 'error', key: 'error/1', data: { kind: 'rejected_event' } }).error?.issues[0]?.path).toEqual([
      'seq',
    ])
  })
})

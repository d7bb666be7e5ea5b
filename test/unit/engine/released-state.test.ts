import { describe, expect, it } from 'vitest'
import { decodeAll } from '../../../src/ingest/index.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { MetricRun } from '../../../src/engine/metric-run.ts'
import { MAX_REBUILD_EVENTS } from '../../../src/engine/invocation-state.ts'
import type { EngineEmission, IngestedEvent } from '../../../src/engine/types.ts'
import type { AnyCriterion } from '../../../src/core/criterion.ts'
import type { AdkEvent } from '../../../src/adk/event.ts'
import type { Invocation } from '../../../src/adk/invocation.ts'

const CITY = ['Paris', 'Lima']
const expected = (k: number) => ({
  invocation_id: `expected-${k}`,
  user_content: { role: 'user', parts: [{ text: `Weather in ${CITY[k]}?` }] },
  final_response: { role: 'model', parts: [{ text: `In ${CITY[k]} it is sunny and 21C.` }] },
  intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city: CITY[k] } }, { name: 'get_time', args: { city: CITY[k] } }] },
})
const spec = {
  session_id: 's1',
  eval_case: { eval_id: 'two', conversation: [expected(0), expected(1)] },
  eval_config: { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 } },
}
// Each model event reports its usage: the efficiency criteria count what they were stepped with.
const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }
const call = (inv: string, name: string, city: string) => ({
  invocationId: inv,
  author: 'a',
  usageMetadata,
  content: { role: 'model', parts: [{ functionCall: { name, args: { city } } }] },
})
const say = (inv: string, text: string) => ({
  invocationId: inv,
  author: 'a',
  usageMetadata,
  content: { role: 'model', parts: [{ text }] },
})

function events(list: object[]): IngestedEvent[] {
  return decodeAll('ndjson', list.map((e) => JSON.stringify(e)).join('\n') + '\n').events
}

/** Every criterion.result the engine emitted for each metric of invocation `index`, last one kept. */
async function lastResults(list: object[], index: number): Promise<Record<string, unknown>> {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({ spec, emit: (body) => emitted.push(body) })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const item of events(list)) created.engine.push(item)
  await created.engine.end()
  const last: Record<string, unknown> = {}
  for (const e of emitted) {
    const data = e.data as { invocation_index?: number; metric_name?: string }
    if (e.type === 'criterion.result' && data.invocation_index === index) last[data.metric_name!] = { ...data, revision: undefined }
  }
  return last
}

describe('criterion states released once an invocation is superseded', () => {
  it('a late event rebuilds them: the reopened invocation scores as if its events had come in order', async () => {
    const first = [call('i0', 'get_weather', 'Paris'), say('i0', 'In Paris')]
    const late = [call('i0', 'get_time', 'Paris'), say('i0', 'In Paris it is sunny and 21C.')]
    const second = [call('i1', 'get_weather', 'Lima'), call('i1', 'get_time', 'Lima'), say('i1', 'In Lima it is sunny and 21C.')]
    const inOrder = await lastResults([...first, ...late, ...second], 0)
    const reopened = await lastResults([...first, ...second, ...late], 0)
    // Both tool calls and the full answer: the late events were stepped on top of the earlier ones.
    expect((inOrder.tool_trajectory_avg_score as { score: number }).score).toBe(1)
    expect((inOrder.response_match_score as { score: number }).score).toBe(1)
    expect((inOrder.inference_call_count_v1 as { score: number }).score).toBe(4)
    expect(reopened).toEqual(inOrder)
  })
})

describe('an invocation longer than MAX_REBUILD_EVENTS', () => {
  it('keeps its criteria states instead of its events: a late event still scores as in order', async () => {
    const many = Array.from({ length: MAX_REBUILD_EVENTS + 10 }, () => say('i0', 'In Paris'))
    const first = [call('i0', 'get_weather', 'Paris'), ...many]
    const late = [call('i0', 'get_time', 'Paris'), say('i0', 'In Paris it is sunny and 21C.')]
    const second = [call('i1', 'get_weather', 'Lima'), say('i1', 'In Lima it is sunny and 21C.')]
    const inOrder = await lastResults([...first, ...late, ...second], 0)
    const reopened = await lastResults([...first, ...second, ...late], 0)
    expect((inOrder.inference_call_count_v1 as { score: number }).score).toBe(MAX_REBUILD_EVENTS + 13)
    expect(reopened).toEqual(inOrder)
  })
})

describe('MetricRun release and restore', () => {
  /** Counts the events it was stepped with; `inits` counts how often its state was built. */
  function countingCriterion() {
    const seen = { inits: 0 }
    const criterion: AnyCriterion = {
      key: 'count',
      description: 'events stepped',
      config: {} as never,
      needsExpected: false,
      judged: false,
      init: () => {
        seen.inits += 1
        return { n: 0 }
      },
      step: (state: { n: number }) => ({ n: state.n + 1 }),
      finish: (state: { n: number }) => ({ kind: 'score', result: { score: state.n } }),
    }
    return { criterion, seen }
  }
  const event = { author: 'a' } as AdkEvent
  const actual = {} as Invocation

  it('rebuilds the state from the events given, once, only after a release', () => {
    const { criterion, seen } = countingCriterion()
    const run = new MetricRun(criterion, { config: { threshold: null }, key: 'k' } as never)
    run.step(event)
    run.step(event)
    run.restore([event]) // not released: nothing to rebuild
    expect(seen.inits).toBe(1)
    run.release()
    run.restore([event, event])
    run.restore([event, event, event, event]) // already restored: ignored
    run.step(event)
    expect(seen.inits).toBe(2)
    expect(run.finish(actual)).toEqual({ kind: 'score', result: { score: 3 } })
  })

  it('a criterion that throws while rebuilding is not evaluated, with the error as the reason', () => {
    const { criterion } = countingCriterion()
    const run = new MetricRun({
      ...criterion,
      step: () => {
        throw new Error('boom')
      },
    }, { config: { threshold: null }, key: 'k' } as never)
    run.release()
    run.restore([event])
    expect(run.finish(actual)).toEqual({ kind: 'score', result: { score: null, reason: 'criterion failed: boom' } })
  })
})

/**
 * A superseded invocation's criterion runs are released and rebuilt from the plan and its kept
 * events when a late event comes (an invocation past MAX_REBUILD_EVENTS keeps its runs instead), to
 * the scores of an in-order session; MetricRun.replayed builds a state once, without early verdicts.
 * Covers: src/engine/invocation-state.ts, src/engine/metric-run.ts, src/engine/session-engine.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { MetricRun, type ProgressMemo } from '../../../src/engine/metric-run.ts'
import { MAX_REBUILD_EVENTS, newInvocationState, releaseRuns, reviveRuns } from '../../../src/engine/invocation-state.ts'
import { planSession } from '../../../src/engine/plan.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'
import type { EngineEmission } from '../../../src/engine/types.ts'
import type { AnyCriterion } from '../../../src/core/criterion.ts'
import type { AdkEvent } from '../../../src/adk/event.ts'
import type { Invocation } from '../../../src/adk/invocation.ts'
import { call, chunk, decodedEvents, expectedTurn, say } from '../../support/city-turns.ts'

const spec = {
  session_id: 's1',
  eval_case: { eval_id: 'two', conversation: [expectedTurn(0, 'Paris'), expectedTurn(1, 'Lima')] },
  eval_config: { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 } },
}
/** What the engine emitted for invocation `index`: each metric's last criterion.result, and its early verdicts. */
async function emittedFor(list: object[], index: number) {
  const emitted: EngineEmission[] = []
  const created = createSessionEngine({ spec, emit: (body) => emitted.push(body) })
  if (!created.ok) throw new Error(created.problem.detail)
  for (const item of decodedEvents(list)) created.engine.push(item)
  await created.engine.end()
  const last: Record<string, unknown> = {}
  const progress: EngineEmission[] = []
  for (const e of emitted) {
    const data = e.data as { invocation_index?: number; metric_name?: string }
    if (data.invocation_index !== index) continue
    if (e.type === 'criterion.result') last[data.metric_name!] = { ...data, revision: undefined }
    if (e.type === 'criterion.progress') progress.push(e)
  }
  return { last, progress }
}

/** Every criterion.result the engine emitted for each metric of invocation `index`, last one kept. */
async function lastResults(list: object[], index: number): Promise<Record<string, unknown>> {
  return (await emittedFor(list, index)).last
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
  it('a late event reports only early verdicts not reported before its invocation was released', async () => {
    // A wrong first call decides the trajectory early (a final verdict). The late answer's first
    // chunk scores as the earlier one did: an unchanged verdict, not reported again.
    const first = [call('i0', 'get_news', 'Paris'), chunk('i0', 'In Paris'), say('i0', 'In Paris')]
    const late = [
      call('i0', 'get_time', 'Paris'),
      chunk('i0', 'In Paris'),
      chunk('i0', ' it is sunny and 21C.'),
      say('i0', 'In Paris it is sunny and 21C.'),
    ]
    const second = [call('i1', 'get_weather', 'Lima'), say('i1', 'In Lima it is sunny and 21C.')]
    const inOrder = await emittedFor([...first, ...late, ...second], 0)
    const reopened = await emittedFor([...first, ...second, ...late], 0)
    const verdicts = (list: EngineEmission[], metric: string) =>
      list.filter((e) => (e.data as { metric_name: string }).metric_name === metric)
    // The trajectory's final verdict once, and the response's verdicts with no repeat of an unchanged one.
    expect(verdicts(inOrder.progress, 'tool_trajectory_avg_score')).toHaveLength(1)
    expect(verdicts(inOrder.progress, 'tool_trajectory_avg_score')[0]!.data).toMatchObject({ score: 0, final: true })
    expect(verdicts(inOrder.progress, 'response_match_score')).toHaveLength(2)
    expect(reopened.progress).toEqual(inOrder.progress)
    expect((inOrder.last.tool_trajectory_avg_score as { score: number }).score).toBe(0)
    expect(reopened.last).toEqual(inOrder.last)
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

describe('a released invocation keeps no criterion runs', () => {
  it('drops them; reviving builds them again from the plan and the kept events, to the same scores', () => {
    const planned = planSession(spec)
    if (!planned.ok) throw new Error(planned.problem.detail)
    const session = { plan: planned.plan, sessionId: 's1' }
    const state = newInvocationState(session, 0, 'i0')
    const slots = state.slots!
    const list = decodedEvents([call('i0', 'get_weather', 'Paris'), call('i0', 'get_time', 'Paris'), say('i0', 'In Paris')]).map((i) =>
      i.event
    )
    for (const event of list) {
      state.events!.push(event)
      for (const slot of slots) slot.run?.step(event, slot)
    }
    const actual = eventsToInvocations(list)[0]!
    const scored = slots.map((slot) => slot.run!.finish(actual))
    releaseRuns(state)
    expect(slots.map((slot) => slot.run)).toEqual(slots.map(() => null))
    reviveRuns(session, state)
    expect(state.released).toBe(false)
    expect(slots.map((slot) => slot.run!.finish(actual))).toEqual(scored)
  })
})

describe('MetricRun.replayed', () => {
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
      // An early verdict that is final from the third event on.
      progress: (state: { n: number }) => ({ score: Math.min(state.n, 3), final: state.n >= 3 }),
      finish: (state: { n: number }) => ({ kind: 'score', result: { score: state.n } }),
    }
    return { criterion, seen }
  }
  const event = { author: 'a' } as AdkEvent
  const actual = {} as Invocation
  const context = { config: { threshold: null }, key: 'k' } as never

  it('builds the state from the events given, once, and goes on from there', () => {
    const { criterion, seen } = countingCriterion()
    const run = MetricRun.replayed(criterion, context, [event, event])
    expect(seen.inits).toBe(1)
    run.step(event, { lastProgress: undefined })
    expect(run.finish(actual)).toEqual({ kind: 'score', result: { score: 3 } })
  })

  it('asks for no early verdicts while replaying; the memo says which were reported', () => {
    const { criterion } = countingCriterion()
    const memo: ProgressMemo = { lastProgress: undefined }
    const first = new MetricRun(criterion, context)
    expect(first.step(event, memo)).toMatchObject({ score: 1, final: false })
    expect(first.step(event, memo)).toMatchObject({ score: 2, final: false })
    expect(memo.lastProgress).toBe('[2,false]')
    // Rebuilt from the same events: its next verdict is the first one not reported yet.
    const rebuilt = MetricRun.replayed(criterion, context, [event, event])
    expect(rebuilt.step(event, memo)).toMatchObject({ score: 3, final: true })
    expect(memo.lastProgress).toBeNull()
    // Final: nothing more, and a run rebuilt after that reports nothing either.
    expect(rebuilt.step(event, memo)).toBeNull()
    expect(MetricRun.replayed(criterion, context, [event, event, event]).step(event, memo)).toBeNull()
  })

  it('a criterion that throws while replaying is not evaluated, with the error as the reason', () => {
    const { criterion } = countingCriterion()
    const run = MetricRun.replayed(
      {
        ...criterion,
        step: () => {
          throw new Error('boom')
        },
      },
      context,
      [event],
    )
    expect(run.failed).toBe(true)
    expect(run.finish(actual)).toEqual({ kind: 'score', result: { score: null, reason: 'criterion failed: boom' } })
  })
})

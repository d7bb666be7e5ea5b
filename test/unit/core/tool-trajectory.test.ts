import { describe, expect, it } from 'vitest'
import { AdkEvent } from '../../../src/adk/event.ts'
import { Invocation } from '../../../src/adk/invocation.ts'
import {
  MAX_LISTED_CALLS,
  toolTrajectoryAvgScore as criterion,
  type ToolTrajectoryConfig,
} from '../../../src/core/criteria/tool-trajectory.ts'
import type { InvocationScore, Provisional } from '../../../src/core/criterion.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'
import { statusFor } from '../../../src/adk/status.ts'
import type { ToolCall } from '../../../src/core/trajectory.ts'
import { readShared } from '../../support/shared-data.ts'

function vectorFile(name: string): string {
  return readShared('vectors', name)
}
type Vector = {
  id: string
  match_type: string
  threshold: number
  invocations: Array<{ actual_calls: ToolCall[]; expected_calls: ToolCall[] }>
  expected: {
    per_invocation_scores: number[]
    per_invocation_status?: string[]
    overall_score: number | null
    overall_eval_status: string
  }
}
const VECTORS = (JSON.parse(vectorFile('trajectory.json')) as { vectors: Vector[] }).vectors

/** An expected invocation in the hand-written IntermediateData shape (`tool_uses`). */
function expectedInvocation(calls: ToolCall[]): Invocation {
  return Invocation.parse({ user_content: { parts: [{ text: 'q' }] }, intermediate_data: { tool_uses: calls } })
}

/** /run_sse-style events (camelCase) for one invocation: user text, calls (two per event at most), final text. */
function eventsFor(id: string, calls: ToolCall[]): AdkEvent[] {
  const raw: unknown[] = [{ invocationId: id, author: 'user', content: { role: 'user', parts: [{ text: 'q' }] } }]
  for (let i = 0; i < calls.length; i += 2) {
    const parts = calls.slice(i, i + 2).map((c, j) => ({ functionCall: { id: `adk-${i + j}`, ...c } }))
    raw.push({ invocationId: id, author: 'agent', content: { role: 'model', parts } })
    raw.push({ invocationId: id, author: 'agent', content: { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] } })
  }
  raw.push({ invocationId: id, author: 'agent', partial: true, content: { parts: [{ text: 'do' }] } })
  raw.push({ invocationId: id, author: 'agent', content: { role: 'model', parts: [{ text: 'done' }] } })
  return raw.map((e) => AdkEvent.parse(e))
}

/** Run the criterion over one invocation: every event through step/progress, then finish. */
function run(config: ToolTrajectoryConfig, expected: Invocation | undefined, events: AdkEvent[], actual: Invocation) {
  let state = criterion.init({ config, expected, key: 'k' })
  const progress: Array<Provisional | null> = []
  for (const event of events) {
    state = criterion.step!(state, event)
    progress.push(criterion.progress!(state))
  }
  const outcome = criterion.finish(state, actual)
  if (outcome.kind !== 'score') throw new Error('tool_trajectory_avg_score never asks a judge')
  return { progress, result: outcome.result }
}

describe('tool_trajectory_avg_score on ADK vectors, fed event by event', () => {
  it.each(VECTORS)('$id', (v) => {
    const config = criterion.config.parse({ threshold: v.threshold, match_type: v.match_type })
    const scores: InvocationScore[] = v.invocations.map((inv, i) => {
      const events = eventsFor(`inv${i}`, inv.actual_calls)
      const [actual] = eventsToInvocations(events)
      const { progress, result } = run(config, expectedInvocation(inv.expected_calls), events, actual!)
      expect(result.score).toBe(v.expected.per_invocation_scores[i])
      if (v.expected.per_invocation_status) expect(statusFor(result.score, v.threshold)).toBe(v.expected.per_invocation_status[i])
      // Any early verdict is final and equals the score at the end.
      const early = progress.find((p) => p !== null)
      if (early) expect(early).toMatchObject({ final: true, score: result.score })
      return result
    })
    const overall = criterion.aggregate!(scores, config)
    expect(overall.score).toBe(v.expected.overall_score)
    expect(overall.status).toBe(v.expected.overall_eval_status)
  })
})

describe('config', () => {
  it('normalises match_type, accepts camelCase, defaults, and keeps unknown keys', () => {
    expect(criterion.config.parse({ threshold: 1 })).toMatchObject({ match_type: 'EXACT', ignore_args: false })
    expect(criterion.config.parse({ threshold: '0.5', matchType: ' any-order ', ignoreArgs: 'yes', note: 1 })).toEqual({
      threshold: 0.5,
      match_type: 'ANY_ORDER',
      ignore_args: true,
      note: 1,
    })
    expect(criterion.config.parse({ threshold: 1, match_type: 1 }).match_type).toBe('IN_ORDER')
  })
  it('rejects an unknown match_type and a missing threshold with a readable message', () => {
    const bad = criterion.config.safeParse({ threshold: 1, match_type: 'random string' })
    expect(bad.success).toBe(false)
    expect(bad.error?.issues[0]?.message).toMatch(/"random string" is not one of EXACT, IN_ORDER, ANY_ORDER/)
    expect(criterion.config.safeParse({ match_type: 'EXACT' }).success).toBe(false)
  })
})

describe('details and edge cases', () => {
  const config = criterion.config.parse({ threshold: 1, match_type: 'IN_ORDER' })
  const a = { name: 'a', args: { x: 1 } }
  const b = { name: 'b' }

  it('reports matched, missing and extra calls as {name, args} with their indices', () => {
    const events = eventsFor('i', [{ name: 'z', args: {} }, a])
    const [actual] = eventsToInvocations(events)
    const { result } = run(config, expectedInvocation([a, b]), events, actual!)
    expect(result).toEqual({
      score: 0,
      details: {
        match_type: 'IN_ORDER',
        matched: [{ name: 'a', args: { x: 1 }, expected_index: 0, actual_index: 1 }],
        missing: [{ name: 'b', args: null, expected_index: 1 }],
        extra: [{ name: 'z', args: {}, actual_index: 0 }],
      },
    })
  })

  it('lists at most MAX_LISTED_CALLS calls per list, with the full count beside', () => {
    const many = Array.from({ length: MAX_LISTED_CALLS + 50 }, (_, i) => ({ name: 'noise', args: { i } }))
    const events = eventsFor('i', [...many, a])
    const { result } = run(config, expectedInvocation([a, b]), events, eventsToInvocations(events)[0]!)
    const details = result.details as Record<string, unknown[] | number>
    expect((details.extra as unknown[]).length).toBe(MAX_LISTED_CALLS)
    expect(details.extra_count).toBe(MAX_LISTED_CALLS + 50)
    expect((details.extra as Array<{ actual_index: number }>).at(-1)!.actual_index).toBe(MAX_LISTED_CALLS - 1)
    expect(details.matched).toEqual([{ name: 'a', args: { x: 1 }, expected_index: 0, actual_index: MAX_LISTED_CALLS + 50 }])
    expect('matched_count' in details || 'missing_count' in details).toBe(false)
  })

  it('without an expected invocation the score is null with a reason', () => {
    const events = eventsFor('i', [a])
    const { progress, result } = run(config, undefined, events, eventsToInvocations(events)[0]!)
    expect(progress.every((p) => p === null)).toBe(true)
    expect(result.score).toBeNull()
    expect(result.status).toBe('NOT_EVALUATED')
    expect(result.reason).toMatch(/expected invocation/)
  })

  it('announces IN_ORDER success as soon as the last expected call arrives', () => {
    const events = eventsFor('i', [a, b, { name: 'later' }])
    const { progress } = run(config, expectedInvocation([a, b]), events, eventsToInvocations(events)[0]!)
    // events: user, [a, b], response, [later], response, partial, final text
    expect(progress.map((p) => p?.score ?? null)).toEqual([null, 1, 1, 1, 1, 1, 1])
  })

  it('announces EXACT failure at the first divergent call', () => {
    const exact = criterion.config.parse({ threshold: 1 })
    const events = eventsFor('i', [b, a])
    const { progress, result } = run(exact, expectedInvocation([a, b]), events, eventsToInvocations(events)[0]!)
    expect(progress[1]).toMatchObject({ final: true, score: 0 })
    expect(result.score).toBe(0)
  })

  // adk-python #5410: ADK drops the calls of a final-response event (long-running / skip_summarization
  // call) from the trajectory unless a later final event replaces it. Such calls must not produce an
  // early verdict, which could then contradict the score of an invocation built the ADK way.
  it('holds back the calls of a long-running final event until a later final event arrives', () => {
    const raw = [
      { invocationId: 'i', author: 'user', content: { parts: [{ text: 'q' }] } },
      { invocationId: 'i', author: 'agent', content: { parts: [{ functionCall: a }] } },
      { invocationId: 'i', author: 'agent', longRunningToolIds: ['lr'], content: { parts: [{ functionCall: { id: 'lr', ...b } }] } },
      { invocationId: 'i', author: 'agent', content: { parts: [{ text: 'started the job' }] } },
    ].map((e) => AdkEvent.parse(e))
    const expected = expectedInvocation([a, b])
    // ADK's own invocation: the long-running call is the final response and not in the trajectory.
    const adkActual = Invocation.parse({
      user_content: { parts: [{ text: 'q' }] },
      final_response: raw[2]!.content,
      intermediate_data: { invocation_events: [{ author: 'agent', content: raw[1]!.content }] },
    })
    const cut = run(config, expected, raw.slice(0, 3), adkActual)
    expect(cut.progress).toEqual([null, null, null])
    expect(cut.result.score).toBe(0)
    // A later final event makes the held call part of the trajectory: now the verdict is decided.
    const full = run(config, expected, raw, eventsToInvocations(raw)[0]!)
    expect(full.progress.map((p) => p?.score ?? null)).toEqual([null, null, null, 1])
    expect(full.result.score).toBe(1)
  })
})

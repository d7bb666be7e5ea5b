import { describe, expect, it } from 'vitest'
import type { AdkEvent } from '../../../../src/adk/event.ts'
import type { Invocation } from '../../../../src/adk/invocation.ts'
import { caseStatus, statusFor, statusFromCode } from '../../../../src/adk/status.ts'
import type { AnyCriterion, InvocationScore, InvocationTiming } from '../../../../src/core/criterion.ts'
import { informationalMean } from '../../../../src/core/criteria/efficiency.ts'
import { inferenceCallCountV1 } from '../../../../src/core/criteria/inference-call-count.ts'
import { durationSeconds, invocationDurationV1 } from '../../../../src/core/criteria/invocation-duration.ts'
import { averageTokenUsage, tokenUsageV1 } from '../../../../src/core/criteria/token-usage.ts'
import { toolCallCountV1 } from '../../../../src/core/criteria/tool-call-count.ts'
import { eventsToInvocations } from '../../../../src/core/events-to-invocations.ts'
import { alwaysReportedCriteria, criteriaCatalogue, criterionByName } from '../../../../src/core/registry.ts'
import { decodeAll } from '../../../../src/ingest/index.ts'
import { readShared } from '../../../support/shared-data.ts'

const capture = (name: string) => decodeAll('sse', readShared('samples', name)).events.map((e) => e.event)

/** Drives a criterion over one invocation's events as the engine does (every event, partials too). */
function score(criterion: AnyCriterion, events: AdkEvent[], timing?: InvocationTiming): InvocationScore {
  let state = criterion.init({ config: { threshold: null }, key: 'k' })
  for (const event of events) if (criterion.step) state = criterion.step(state, event)
  const actual: Invocation | undefined = eventsToInvocations(events.filter((e) => !e.partial))[0]
  if (!actual) throw new Error('no invocation in these events')
  const outcome = criterion.finish(state, actual, timing)
  if (outcome.kind !== 'score') throw new Error('efficiency metrics never ask a judge')
  return outcome.result
}

const agent = (extra: Partial<AdkEvent> & Record<string, unknown>): AdkEvent => ({
  invocation_id: 'e-1',
  author: 'weather_agent',
  content: { role: 'model', parts: [{ text: 'hi' }] },
  ...extra,
})

describe('tool_call_count_v1', () => {
  it('counts the calls of the ADK JS capture, streamed or not', () => {
    expect(score(toolCallCountV1, capture('adk-js-weather.sse'))).toEqual({ score: 2, status: 'INFORMATIONAL' })
    expect(score(toolCallCountV1, capture('adk-js-weather-streaming.sse')).score).toBe(2)
  })

  it('is 0, not n/a, for an invocation without calls', () => {
    expect(score(toolCallCountV1, [agent({})])).toEqual({ score: 0, status: 'INFORMATIONAL' })
  })

  it('averages per invocation over the case, as ADK (2 and 1 calls -> 1.5)', () => {
    expect(informationalMean([{ score: 2 }, { score: 1 }])).toEqual({ score: 1.5, status: 'INFORMATIONAL' })
  })
})

describe('inference_call_count_v1', () => {
  it('counts the three model responses of the capture (two calls and the answer)', () => {
    expect(score(inferenceCallCountV1, capture('adk-js-weather.sse')).score).toBe(3)
  })

  it('counts no streamed chunk and no content-less follow-up event: the streamed run also has 3', () => {
    const events = capture('adk-js-weather-streaming.sse')
    // The capture really has what must not be counted: 3 partial chunks, 2 content-less model events.
    expect(events.filter((e) => e.partial && e.usage_metadata)).toHaveLength(3)
    expect(events.filter((e) => !e.content?.parts?.length && e.usage_metadata)).toHaveLength(2)
    expect(score(inferenceCallCountV1, events).score).toBe(3)
  })

  it('counts an event with only a model version; not the user event, nor one with neither', () => {
    const events = [
      agent({ author: 'user', usage_metadata: { promptTokenCount: 3 } }),
      agent({ modelVersion: 'gemini-2.5-flash' }),
      agent({ model_version: 'gemini-2.5-flash' }),
      agent({}),
    ]
    expect(score(inferenceCallCountV1, events).score).toBe(2)
  })

  it('is n/a with the reason when no event reports a model call', () => {
    const result = score(inferenceCallCountV1, [agent({})])
    expect(result).toMatchObject({ score: null, status: 'INFORMATIONAL', reason: expect.stringMatching(/usageMetadata or modelVersion/) })
  })
})

describe('token_usage_v1', () => {
  it('sums the usage of the capture: 3 calls of 50 + 7 tokens', () => {
    const result = score(tokenUsageV1, capture('adk-js-weather.sse'))
    expect(result.score).toBe(171)
    expect(result.details).toEqual({
      token_usage_details: {
        total_tokens: 171,
        input_tokens: 150,
        prompt_tokens: 150,
        cached_tokens: null,
        tool_use_tokens: null,
        output_tokens: 21,
        candidates_tokens: 21,
        reasoning_tokens: null,
      },
    })
    expect(score(tokenUsageV1, capture('adk-js-weather-streaming.sse')).details).toEqual(result.details)
  })

  it('nests cached, tool-use and reasoning counts (either spelling); the total ignores totalTokenCount', () => {
    const events = [
      agent({
        usage_metadata: {
          promptTokenCount: 100,
          cachedContentTokenCount: 40,
          candidatesTokenCount: 10,
          thoughtsTokenCount: 30,
          totalTokenCount: 1,
        },
      }),
      agent({ usage_metadata: { prompt_token_count: 200, tool_use_prompt_token_count: 5, candidates_token_count: 20 } }),
    ]
    expect(score(tokenUsageV1, events).details?.token_usage_details).toEqual({
      total_tokens: 365,
      input_tokens: 305,
      prompt_tokens: 300,
      cached_tokens: 40,
      tool_use_tokens: 5,
      output_tokens: 60,
      candidates_tokens: 30,
      reasoning_tokens: 30,
    })
  })

  it('is n/a (null, never 0) when no call reported usage', () => {
    const result = score(tokenUsageV1, [agent({ modelVersion: 'm' })])
    expect(result).toMatchObject({ score: null, status: 'INFORMATIONAL', reason: expect.stringMatching(/usageMetadata/) })
    expect(result.details?.token_usage_details).toMatchObject({ total_tokens: null, reasoning_tokens: null })
  })

  it('averages each count over every invocation; a count no invocation reported stays null', () => {
    const a = score(tokenUsageV1, [agent({ usage_metadata: { promptTokenCount: 80, candidatesTokenCount: 10, thoughtsTokenCount: 10 } })])
    const b = score(tokenUsageV1, [agent({ usage_metadata: { promptTokenCount: 40, candidatesTokenCount: 10 } })])
    const overall = averageTokenUsage([a, b])
    expect(overall).toMatchObject({ score: 75, status: 'INFORMATIONAL' })
    expect(overall.details?.token_usage_details).toMatchObject({ total_tokens: 75, reasoning_tokens: 5, cached_tokens: null })
    expect(averageTokenUsage([])).toMatchObject({ score: null, status: 'INFORMATIONAL', reason: 'there were no invocations' })
  })
})

describe('invocation_duration_v1', () => {
  it('reports the measured time in seconds, rounded to milliseconds', () => {
    expect(durationSeconds(1234.56)).toBe(1.235)
    expect(score(invocationDurationV1, [agent({})], { durationMs: 2500 })).toEqual({ score: 2.5, status: 'INFORMATIONAL' })
  })

  it('is n/a without a measurement, whatever the event timestamps say', () => {
    const events = [agent({ timestamp: 100 }), agent({ timestamp: 160 })]
    expect(score(invocationDurationV1, events)).toMatchObject({
      score: null,
      status: 'INFORMATIONAL',
      reason: expect.stringMatching(/not received live/),
    })
  })
})

describe('efficiency metrics as a family', () => {
  it('are always reported, in ADK order, and listed in the catalogue', () => {
    const keys = ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']
    expect(alwaysReportedCriteria().map((c) => c.key)).toEqual(keys)
    for (const key of keys) expect(criterionByName(key)?.alwaysReported).toBe(true)
    const listed = criteriaCatalogue().filter((c) => keys.includes(c.name))
    expect(listed.map((c) => c.name)).toEqual(keys)
    for (const entry of listed) expect(entry.description).toMatch(/Informational, always reported/)
  })

  it('reject any config entry, threshold included, with a message that says what to do', () => {
    for (const criterion of alwaysReportedCriteria()) {
      const parsed = criterion.config.safeParse({ threshold: 3, include_intermediate_responses_in_final: false })
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues[0]?.message).toMatch(/takes no threshold: remove it from criteria/)
    }
  })

  it('keep the INFORMATIONAL status without any value, and never decide a case', () => {
    expect(informationalMean([{ score: null, reason: 'n/a here' }])).toEqual({ score: null, status: 'INFORMATIONAL', reason: 'n/a here' })
    expect(statusFor(0, null)).toBe('INFORMATIONAL')
    expect(statusFor(null, null)).toBe('INFORMATIONAL')
    expect(statusFromCode(4)).toBe('INFORMATIONAL')
    expect(caseStatus(['INFORMATIONAL', 'INFORMATIONAL'])).toBe('NOT_EVALUATED')
    expect(caseStatus(['INFORMATIONAL', 'PASSED'])).toBe('PASSED')
    expect(caseStatus(['PASSED', 'INFORMATIONAL', 'FAILED'])).toBe('FAILED')
  })
})

describe("ADK's metric registry", () => {
  it('all 17 names have a criterion; other names none', () => {
    const names = [
      'tool_trajectory_avg_score',
      'response_evaluation_score',
      'response_match_score',
      'safety_v1',
      'multi_turn_task_success_v1',
      'multi_turn_trajectory_quality_v1',
      'multi_turn_tool_use_quality_v1',
      'final_response_match_v2',
      'rubric_based_final_response_quality_v1',
      'hallucinations_v1',
      'rubric_based_tool_use_quality_v1',
      'per_turn_user_simulator_quality_v1',
      'rubric_based_multi_turn_trajectory_quality_v1',
      'tool_call_count_v1',
      'inference_call_count_v1',
      'token_usage_v1',
      'invocation_duration_v1',
    ]
    for (const name of names) expect(criterionByName(name)?.key).toBe(name)
    expect(criterionByName('no_such_metric')).toBeUndefined()
  })
})

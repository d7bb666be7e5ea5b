/**
 * What ADK's informational efficiency metrics share (newer ADK, `_efficiency_evaluators.py`; ADK's
 * docs "Efficiency criteria"): each reports a value per invocation, lower is better, and the case's
 * value is the mean of the invocations that have one. They never pass or fail: their status is
 * INFORMATIONAL, with or without a value. They are always reported, after the configured metrics,
 * and a config that lists them is an error: ADK requires a threshold on every `criteria` entry and
 * rejects a threshold on these ("Remove it from `criteria` entirely").
 *
 * Events counted: the invocation's events from the agent that have content and are not partial,
 * the events ADK builds an invocation from (events without content are ignored, spec §4.4). With
 * `streaming: true` ADK sends each model answer as partial chunks that repeat its usage metadata,
 * then once in full, and ADK for JavaScript follows each streamed function call with a content-less
 * event carrying the same call's usage: counting either would count one model call several times
 * (docs/adk-parity.md, "Live streams"). A streamed run so counts what the same run gives unstreamed.
 */
import * as z from 'zod'
import { lazySchema } from '../../adk/lazy-schema.ts'
import type { AdkEvent } from '../../adk/event.ts'
import { isRecord } from '../../adk/json.ts'
import { floatMean } from '../aggregate.ts'
import type { InvocationScore, OverallScore } from '../criterion.ts'
import { isUserEvent } from '../events-to-invocations.ts'

/**
 * The config of every efficiency metric: never valid, because any `criteria` entry has a threshold.
 * @example noThresholdConfig('token_usage_v1').safeParse({ threshold: 1 }).success // false
 */
export function noThresholdConfig(metricName: string) {
  return lazySchema(() =>
    z.custom<never>(() => false, {
      message: `${metricName} is reported for every session and never passes or fails, so it takes no threshold: remove it from criteria`,
    })
  )
}

/** Efficiency metrics are never configured; the engine gives them this in place of a parsed config. */
export type NoConfig = { threshold: null }

/**
 * An invocation's value: the score, status INFORMATIONAL; a missing value says why.
 * @example informational(2) // { score: 2, status: 'INFORMATIONAL' }
 */
export function informational(score: number | null, reason?: string, details?: Record<string, unknown>): InvocationScore {
  const result: InvocationScore = { score, status: 'INFORMATIONAL' }
  if (score === null) result.reason = reason ?? 'not available for this invocation'
  if (details) result.details = details
  return result
}

/**
 * The case's value: the mean of the invocations that have one (null values are n/a, not 0), status
 * INFORMATIONAL even when no invocation had a value.
 * @example informationalMean([{ score: 2 }, { score: 1 }, { score: null }]) // { score: 1.5, status: 'INFORMATIONAL' }
 */
export function informationalMean(scores: readonly InvocationScore[]): OverallScore {
  const values = scores.map((s) => s.score).filter((v): v is number => typeof v === 'number' && !Number.isNaN(v))
  const score = floatMean(values)
  if (score !== null) return { score, status: 'INFORMATIONAL' }
  const reason = scores.length === 0 ? 'there were no invocations' : (scores.find((s) => s.reason)?.reason ?? 'no invocation had a value')
  return { score: null, status: 'INFORMATIONAL', reason }
}

/**
 * An event from the agent, with content, not a streamed chunk: what a model call is counted in.
 * @example isCountedAgentEvent({ author: 'agent', partial: true, content: { parts: [{ text: 'Hi' }] } }) // false
 */
export function isCountedAgentEvent(event: AdkEvent): boolean {
  return !event.partial && !isUserEvent(event) && (event.content?.parts?.length ?? 0) > 0
}

/**
 * `modelVersion` as the agent sent it (an extra field, kept in either spelling).
 * @example modelVersionOf({ modelVersion: 'gemini-2.5-flash' } as AdkEvent) // 'gemini-2.5-flash'
 */
function modelVersionOf(event: AdkEvent): string | undefined {
  const extra = event as Record<string, unknown>
  const value = extra.model_version ?? extra.modelVersion
  return typeof value === 'string' ? value : undefined
}

/**
 * The event's usage metadata, when it is an object.
 * @example usageOf({ usage_metadata: { promptTokenCount: 50 } }) // { promptTokenCount: 50 }
 */
export function usageOf(event: AdkEvent): Record<string, unknown> | undefined {
  return isRecord(event.usage_metadata) ? event.usage_metadata : undefined
}

/**
 * A model call, as ADK counts one: an event carrying usage metadata or a model version.
 * @example isModelCallEvent({ usage_metadata: { promptTokenCount: 50 } }) // true
 */
export function isModelCallEvent(event: AdkEvent): boolean {
  return usageOf(event) !== undefined || modelVersionOf(event) !== undefined
}

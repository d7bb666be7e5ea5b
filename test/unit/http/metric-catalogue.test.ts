/**
 * The metric catalogue (GET /v1/criteria, the Eval tab's metrics-info): the 17 names of ADK's
 * metric registry, each with its interval (ADK's metric_info: response_evaluation_score 1-5, the
 * others 0-1) and none for the four informational metrics, which take no threshold; a run request
 * that chooses one of them is not refused (it is reported on every run anyway).
 * Covers: src/http/dev-eval/metrics-info.ts.
 */
import { describe, expect, it } from 'vitest'
import { criteriaCatalogue } from '../../../src/core/registry.ts'
import { metricsInfo } from '../../../src/http/dev-eval/metrics-info.ts'
import { readRunRequest } from '../../../src/http/dev-eval/run.ts'
import { planSession } from '../../../src/engine/plan.ts'

const INFORMATIONAL = ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']

describe('the catalogue of ADK metrics', () => {
  it('lists the 17 registry names, intervals as ADK declares them, none for the informational four', () => {
    const catalogue = criteriaCatalogue()
    expect(catalogue).toHaveLength(17)
    const byName = new Map(catalogue.map((c) => [c.name, c]))
    for (const name of INFORMATIONAL) expect(byName.get(name)).toMatchObject({ informational: true, interval: null })
    expect(byName.get('response_evaluation_score')?.interval).toEqual({ min_value: 1, max_value: 5 })
    expect(byName.get('multi_turn_task_success_v1')).toMatchObject({ informational: false, interval: { min_value: 0, max_value: 1 } })
  })

  it('metrics-info: every metric that takes a threshold, with its interval; the informational four left out', () => {
    const info = new Map(metricsInfo().map((m) => [m.metric_name, m.metric_value_info]))
    expect(info.size).toBe(13)
    for (const name of INFORMATIONAL) expect(info.has(name)).toBe(false)
    for (const value of info.values()) expect(value.interval.max_value).toBeGreaterThan(value.interval.min_value)
    expect(info.get('response_evaluation_score')).toEqual({
      interval: { min_value: 1, max_value: 5, open_at_min: false, open_at_max: false },
    })
  })

  it('a run that chooses tool_call_count_v1 with a threshold is accepted, and the metric is still reported', () => {
    const read = readRunRequest({
      evalIds: ['c'],
      evalMetrics: [{ metricName: 'response_match_score', threshold: 0.7 }, { metricName: 'tool_call_count_v1', threshold: 0.5 }],
    }, undefined)
    expect(read).toEqual({ ok: true, request: { caseIds: ['c'], evalConfig: { criteria: { response_match_score: 0.7 } } } })
    const spec = planSession({ eval_config: read.ok ? read.request.evalConfig : undefined })
    expect(spec.ok && spec.plan.metrics.map((m) => m.metric.metric_name)).toEqual(['response_match_score', ...INFORMATIONAL])
  })
})

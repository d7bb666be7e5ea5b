/**
 * The runner's pure pieces: the wire spelling of a user message, and the verdict over several runs.
 * Covers: src/runner/wire-content.ts, src/runner/aggregate-runs.ts.
 */
import { describe, expect, it } from 'vitest'
import { EvalMetric } from '../../../src/adk/eval-config.ts'
import { evalCaseResult, evalMetricResult } from '../../../src/adk/results.ts'
import { type CaseRunOutcome, caseVerdict } from '../../../src/runner/index.ts'
import { wireContent } from '../../../src/runner/wire-content.ts'

describe('wireContent', () => {
  it('renames part fields to camelCase and keeps user data (args, responses) as given', () => {
    expect(
      wireContent({
        role: 'user',
        parts: [
          { text: 'hi' },
          { function_response: { id: 'c1', name: 'lookup', response: { snake_key: { inner_key: 1 } } } },
          { function_call: { name: 'f', args: { some_arg: 2 } } },
          { inline_data: { mime_type: 'image/png', data: 'AAAA' } },
        ],
      }),
    ).toEqual({
      role: 'user',
      parts: [
        { text: 'hi' },
        { functionResponse: { id: 'c1', name: 'lookup', response: { snake_key: { inner_key: 1 } } } },
        { functionCall: { name: 'f', args: { some_arg: 2 } } },
        { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
      ],
    })
  })

  it('gives a message without a role the user role', () => {
    expect(wireContent({ parts: [{ text: 'x' }] })).toEqual({ role: 'user', parts: [{ text: 'x' }] })
  })
})

const METRIC = EvalMetric.parse({ metric_name: 'm', threshold: 0.5 })

/** A run whose per-invocation scores are given; its own overall is their mean. */
function outcome(run: number, scores: Array<number | null>, reason?: string): CaseRunOutcome {
  const mean = scores.filter((s): s is number => s !== null)
  const overall = mean.length ? mean.reduce((a, b) => a + b, 0) / mean.length : null
  const status = overall === null ? 'NOT_EVALUATED' : overall >= 0.5 ? 'PASSED' : 'FAILED'
  const caseResult = evalCaseResult({
    evalSetId: 's',
    evalId: 'c',
    sessionId: `s${run}`,
    overall: reason ? [] : [evalMetricResult(METRIC, { score: overall, status })],
    perInvocation: reason ? [] : scores.map((score) => ({
      actual_invocation: { invocation_id: 'i', user_content: { parts: [] }, creation_timestamp: 0 } as never,
      expected_invocation: null,
      eval_metric_results: [evalMetricResult(METRIC, { score, status: 'PASSED' })],
    })),
  })
  return {
    evalSetId: 's',
    evalId: 'c',
    run,
    status: reason ? 'NOT_EVALUATED' : status,
    reason,
    userId: 'u',
    invocations: scores.length,
    caseResult,
    results: [],
    warnings: [],
  }
}

describe('caseVerdict', () => {
  it('one run: the case result as it is', () => {
    const v = caseVerdict([outcome(0, [1, 0])])
    expect(v).toMatchObject({ status: 'PASSED', overall: [{ metric_name: 'm', score: 0.5, threshold: 0.5, eval_status: 'PASSED' }] })
  })

  it("several runs: AgentEvaluator's mean of every per-invocation score over all runs, nulls left out", () => {
    // The run means are 1 and 0.133 (their mean, 0.567, would pass); the per-invocation mean is 1.4 / 4 = 0.35.
    const v = caseVerdict([outcome(0, [1]), outcome(1, [0, 0, 0.4, null])])
    expect(v.overall[0]).toMatchObject({ score: 1.4 / 4, eval_status: 'FAILED' })
    expect(v.status).toBe('FAILED')
    expect(caseVerdict([outcome(0, [1, 0]), outcome(1, [0.5])]).status).toBe('PASSED')
  })

  it('several runs with no score at all: NOT_EVALUATED', () => {
    expect(caseVerdict([outcome(0, [null]), outcome(1, [null])])).toMatchObject({ status: 'NOT_EVALUATED', overall: [{ score: null }] })
  })

  it('a run the agent broke makes the case NOT_EVALUATED with that reason', () => {
    const v = caseVerdict([outcome(0, [1]), outcome(1, [], 'the agent answered 503')])
    expect(v).toMatchObject({ status: 'NOT_EVALUATED', reason: 'run 2: the agent answered 503' })
  })
})

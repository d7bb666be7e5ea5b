import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { evalMetricsOf, parseEvalConfig } from '../../../src/adk/eval-config.ts'
import { parseEvalSet } from '../../../src/adk/parse-eval-set.ts'
import { pydanticFloat, writePydanticJson } from '../../../src/adk/pydantic-json.ts'
import { evalCaseResultJson, evalSetResultJson, readEvalSetResult } from '../../../src/adk/results-json.ts'
import { evalCaseResult, evalMetricResult, evalSetResult, pythonTimestamp } from '../../../src/adk/results.ts'
import { sharedPath } from '../../support/shared-data.ts'

const FIXTURES = sharedPath('adk-fixtures')
const RESULT_FILE = 'generated__weather_agent_weather_set.evalset_result.json'
const resultText = readFileSync(FIXTURES + RESULT_FILE, 'utf8')

function read(text: string) {
  const r = readEvalSetResult(text, { source: RESULT_FILE })
  if (!r.ok) throw new Error(r.error.message)
  return r.result
}

describe('result file round trip', () => {
  it('parse + serialize gives the identical bytes', () => {
    expect(evalSetResultJson(read(resultText))).toBe(resultText)
  })

  it('reads statuses as names and scores as numbers', () => {
    const result = read(resultText)
    const c = result.eval_case_results[0]!
    expect(c.final_eval_status).toBe('PASSED')
    expect(c.overall_eval_metric_results.map((m) => [m.metric_name, m.score, m.eval_status])).toEqual([
      ['tool_trajectory_avg_score', 1, 'PASSED'],
      ['response_match_score', 0.5, 'PASSED'],
      ['rubric_based_final_response_quality_v1', 1, 'PASSED'],
    ])
    expect(c.eval_metric_result_per_invocation[0]!.expected_invocation?.invocation_id).toBe('e-expected-1')
  })

  it('accepts legacy double-encoded JSON', () => {
    expect(evalSetResultJson(read(JSON.stringify(resultText)))).toBe(resultText)
  })

  it('says where a bad result file is wrong', () => {
    const bad = JSON.parse(resultText)
    bad.eval_case_results[0].final_eval_status = 7
    const r = readEvalSetResult(JSON.stringify(bad), { source: 'x.evalset_result.json' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toContain('$.eval_case_results[0].final_eval_status')
    const r2 = readEvalSetResult('{"eval_set_result_id": ', { source: 'y.json' })
    expect(!r2.ok && r2.error.message).toContain('not valid JSON')
  })
})

describe('builders reproduce the ADK-written file', () => {
  it('evalSetResult + evalCaseResult + evalMetricResult give the fixture byte for byte', () => {
    const set = parseEvalSet(JSON.parse(readFileSync(`${FIXTURES}generated__weather_set_ui.evalset.json`, 'utf8')))
    if (!set.ok) throw new Error(set.error.message)
    const expected = set.evalSet.eval_cases[0]!.conversation![0]!
    const actual = set.evalSet.eval_cases[1]!.conversation![0]!
    const rubric = { rubric_id: 'mentions_temp', rubric_content: { text_property: 'The response states the temperature.' } }
    const config = parseEvalConfig({
      criteria: {
        tool_trajectory_avg_score: { threshold: 1.0, match_type: 'IN_ORDER' },
        response_match_score: 0.5,
        rubric_based_final_response_quality_v1: {
          threshold: 0.8,
          judge_model_options: { judge_model: 'gemini-2.5-flash', num_samples: 3 },
          rubrics: [rubric],
        },
      },
    })
    if (!config.ok) throw new Error(config.error.message)
    const [trajectory, rouge, rubrics] = evalMetricsOf(config.config)
    const score = (rationale: string) => [{ rubric_id: 'mentions_temp', rationale, score: 1 }]
    const aggregated =
      'This is an aggregated score derived from individual entries. Please refer to individual entries in each invocation for actual rationale from the model.'
    const caseResult = evalCaseResult({
      evalSetId: 'weather_set',
      evalId: 'weather_paris',
      overall: [
        evalMetricResult(trajectory!, { score: 1, status: 'PASSED' }),
        evalMetricResult(rouge!, { score: 0.5, status: 'PASSED' }),
        evalMetricResult(rubrics!, { score: 1, status: 'PASSED', rubricScores: score(aggregated) }),
      ],
      perInvocation: [
        {
          actual_invocation: actual,
          expected_invocation: expected,
          eval_metric_results: [
            evalMetricResult(trajectory!, { score: 1, status: 'PASSED' }),
            evalMetricResult(rouge!, { score: 0.5, status: 'PASSED' }),
            evalMetricResult(rubrics!, { score: 1, status: 'PASSED', rubricScores: score('It says 21C.') }),
          ],
        },
      ],
      sessionId: '___eval___session___0000',
      userId: 'test_user',
    })
    expect(caseResult.final_eval_status).toBe('PASSED')
    const result = evalSetResult({
      appName: 'weather_agent',
      evalSetId: 'weather_set',
      caseResults: [caseResult],
      timestamp: 1795312257.9031253,
    })
    expect(evalSetResultJson(result)).toBe(resultText)
  })

  it('derives the case status with ADK rules and names results as ADK does', () => {
    const metric = { metric_name: 'm', threshold: 0.5, criterion: { threshold: 0.5, include_intermediate_responses_in_final: false } }
    const c = evalCaseResult({
      evalSetId: 's',
      evalId: 'c',
      overall: [
        evalMetricResult(metric, { score: null, status: 'NOT_EVALUATED' }),
        evalMetricResult(metric, { score: 0.1, status: 'FAILED' }),
      ],
      perInvocation: [],
      sessionId: 'x',
    })
    expect(c.final_eval_status).toBe('FAILED')
    expect(evalCaseResultJson(c)).toContain('"final_eval_status": 2')
    expect(evalCaseResultJson(c)).toContain('"score": null,\n      "eval_status": 3')
    const r = evalSetResult({ appName: 'app', evalSetId: 'dir/set', caseResults: [c], timestamp: 1700000000 })
    expect([r.eval_set_result_id, r.eval_set_result_name]).toEqual(['app_dir/set_1700000000.0', 'app_dir_set_1700000000.0'])
    expect(pythonTimestamp(1795312257.9031253)).toBe('1795312257.9031253')
  })
})

// Recorded with pydantic 2.13.4 / pydantic-core 2.46.4: `BaseModel` with `x: list[float]`,
// `model_dump_json()`; left: Python repr of the float, right: what pydantic wrote.
const PYDANTIC_FLOATS: [number, string][] = [
  [0.0, '0.0'],
  [-0.0, '-0.0'],
  [1.0, '1.0'],
  [-1.0, '-1.0'],
  [0.5, '0.5'],
  [0.1, '0.1'],
  [0.30000000000000004, '0.30000000000000004'],
  [0.3333333333333333, '0.3333333333333333'],
  [1e-5, '0.00001'],
  [1e-6, '1e-6'],
  [1.5e-5, '0.000015'],
  [9.99e-6, '9.99e-6'],
  [0.0001, '0.0001'],
  [1000000000000000.0, '1000000000000000.0'],
  [1e16, '1e+16'],
  [9999999999999998.0, '9999999999999998.0'],
  [1.5e16, '1.5e+16'],
  [123456789.125, '123456789.125'],
  [1795312257.9031253, '1795312257.9031253'],
  [1760000000.0, '1760000000.0'],
  [5e-324, '5e-324'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [-2.5e-7, '-2.5e-7'],
  [0.8, '0.8'],
  [100.0, '100.0'],
  [1.2345678901234567e19, '1.2345678901234567e+19'],
  [9007199254740992, '9007199254740992.0'],
  [1e21, '1e+21'],
  [1.25e-10, '1.25e-10'],
  [94786536.06090632, '94786536.06090632'],
  [6509344730398.537, '6509344730398.537'],
  [8.212742919913082e-9, '8.212742919913082e-9'],
  [3.6568891691258554e-7, '3.6568891691258554e-7'],
  [418172151370759.5, '418172151370759.5'],
  [9.474497007074876e-6, '9.474497007074876e-6'],
  [495893133897.7146, '495893133897.7146'],
]

describe('pydantic float format', () => {
  it.each(PYDANTIC_FLOATS)('%d -> %s', (value, text) => expect(pydanticFloat(value)).toBe(text))

  it('writes NaN and infinities as null (ser_json_inf_nan="null")', () => {
    expect([NaN, Infinity, -Infinity].map(pydanticFloat)).toEqual(['null', 'null', 'null'])
  })

  it('writes free-form numbers as ints when whole, and strings like pydantic', () => {
    const text = writePydanticJson({ a: { i: 21, f: 0.5, s: 'é/\u2028\u007f\u0001"' }, b: [] }, { fields: [['a', 'any'], ['b', 'any']] })
    expect(text).toBe('{\n  "a": {\n    "i": 21,\n    "f": 0.5,\n    "s": "é/\u2028\u007f\\u0001\\""\n  },\n  "b": []\n}')
  })
})

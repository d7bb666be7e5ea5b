import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_EVAL_CONFIG, EvalConfig, EvalMetric, evalMetricsOf, parseEvalConfig } from '../../../src/adk/eval-config.ts'
import { sharedPath } from '../../support/shared-data.ts'

const FIXTURES = sharedPath('adk-fixtures')
const readFixture = (name: string): unknown => JSON.parse(readFileSync(FIXTURES + name, 'utf8'))

const parse = (json: unknown) => {
  const r = parseEvalConfig(json)
  if (!r.ok) throw new Error(r.error.message)
  return r.config
}

describe('criterion values', () => {
  it.each([
    ['number', 0.7, 0.7],
    ['integer', 1, 1],
    ['numeric string', '0.5', 0.5],
    ['padded string with exponent', ' 5e-1 ', 0.5],
    ['boolean (pydantic lax float)', true, 1],
  ])('%s becomes { threshold }', (_, value, threshold) => {
    expect(parse({ criteria: { m: value } }).criteria.m).toEqual({ threshold, include_intermediate_responses_in_final: false })
  })

  it('keeps every extra key of an object with its original spelling, after the declared fields', () => {
    const c = parse({ criteria: { m: { matchType: 'IN_ORDER', threshold: '1', judge_model_options: { num_samples: 3 } } } }).criteria.m!
    expect(c).toEqual({
      threshold: 1,
      include_intermediate_responses_in_final: false,
      matchType: 'IN_ORDER',
      judge_model_options: { num_samples: 3 },
    })
    expect(Object.keys(c)).toEqual(['threshold', 'include_intermediate_responses_in_final', 'matchType', 'judge_model_options'])
  })

  it('accepts the camelCase alias of a declared criterion field', () => {
    const c = parse({ criteria: { m: { threshold: 1, includeIntermediateResponsesInFinal: true } } }).criteria.m!
    expect(c.include_intermediate_responses_in_final).toBe(true)
  })

  it.each([
    ['object without threshold', { m: { match_type: 'EXACT' } }, '$.criteria.m.threshold: required field is missing'],
    ['non-numeric string', { m: 'high' }, '$.criteria.m: expected object, received the string "high"'],
    ['null', { m: null }, '$.criteria.m: expected object, received null'],
  ])('rejects a %s with a readable message', (_, criteria, message) => {
    const r = parseEvalConfig({ criteria }, { source: 'cfg.json' })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.message).toContain('eval config file cfg.json is not valid')
      expect(r.error.message).toContain(message)
    }
  })
})

describe('EvalConfig', () => {
  it('accepts both casings and ignores unknown top-level keys', () => {
    const c = parse({
      criteria: { m: 1 },
      customMetrics: { m: { codeConfig: { name: 'pkg.mod.fn' } } },
      userSimulatorConfig: { model: 'x' },
      comment: 'ignored',
    })
    expect(c.custom_metrics?.m?.code_config.name).toBe('pkg.mod.fn')
    expect(c.user_simulator_config).toEqual({ model: 'x' })
    expect('comment' in c).toBe(false)
  })

  it('has an empty criteria map when none is given', () => {
    expect(parse({}).criteria).toEqual({})
  })

  it("DEFAULT_EVAL_CONFIG is ADK's default", () => {
    expect(evalMetricsOf(DEFAULT_EVAL_CONFIG).map((m) => [m.metric_name, m.threshold])).toEqual([
      ['tool_trajectory_avg_score', 1],
      ['response_match_score', 0.8],
    ])
    // Written out in eval-config.ts so its module builds no schema when loaded; it is what the parse gives.
    expect(DEFAULT_EVAL_CONFIG).toStrictEqual(EvalConfig.parse({ criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }))
  })

  it('loads every config fixture', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('test_config.json') || f.includes('eval_config'))
    expect(files.length).toBe(10)
    for (const f of files) {
      const r = parseEvalConfig(readFixture(f), { source: f })
      expect(r.ok, f).toBe(true)
    }
  })
})

describe('evalMetricsOf', () => {
  const config = parse(readFixture('generated__eval_config_all_kinds.json'))
  const metrics = evalMetricsOf(config)

  it('lists metrics in config order with their thresholds', () => {
    expect(metrics.map((m) => [m.metric_name, m.threshold])).toEqual([
      ['tool_trajectory_avg_score', 1],
      ['response_match_score', 0.8],
      ['final_response_match_v2', 0.8],
      ['rubric_based_final_response_quality_v1', 0.8],
      ['rubric_based_tool_use_quality_v1', 1],
      ['hallucinations_v1', 0.8],
      ['safety_v1', 0.8],
    ])
  })

  it('keeps the raw criterion object for each criterion to parse later', () => {
    expect(metrics[0]!.criterion).toEqual({ threshold: 1, include_intermediate_responses_in_final: false, match_type: 'IN_ORDER' })
    expect(metrics[5]!.criterion.evaluate_intermediate_nl_responses).toBe(true)
    expect(metrics[6]!.criterion).toEqual({ threshold: 0.8, include_intermediate_responses_in_final: false })
  })

  it('takes custom_function_path from custom_metrics', () => {
    const m = evalMetricsOf(parse({ criteria: { mine: 0.5 }, custom_metrics: { mine: { code_config: { name: 'a.b.c' } } } }))
    expect(m).toEqual([{
      metric_name: 'mine',
      threshold: 0.5,
      criterion: { threshold: 0.5, include_intermediate_responses_in_final: false },
      custom_function_path: 'a.b.c',
    }])
  })

  it('EvalMetric without a criterion gets BaseCriterion(threshold)', () => {
    expect(EvalMetric.parse({ metricName: 'm', threshold: 0.3 }).criterion).toEqual({
      threshold: 0.3,
      include_intermediate_responses_in_final: false,
    })
  })
})

/**
 * The CI reports of `evalstream eval` and `run`: JUnit XML (one test case per eval case, one
 * failure per failed criterion with expected versus actual) and the Markdown summary.
 */
import { describe, expect, it } from 'vitest'
import { failureText, junitXml, markdownSummary, type ReportedCase } from '../../../src/adapter/node/ci-reports.ts'
import type { CriterionResultData } from '../../../src/engine/types.ts'

const result = (over: Partial<CriterionResultData>): CriterionResultData =>
  ({
    metric_name: 'response_match_score',
    invocation_index: 0,
    invocation_id: 'inv-1',
    score: 0.9,
    threshold: 0.8,
    eval_status: 'PASSED',
    details: {},
    ...over,
  }) as CriterionResultData

const trajectoryFailure = result({
  metric_name: 'tool_trajectory_avg_score',
  score: 0,
  threshold: 1,
  eval_status: 'FAILED',
  details: {
    match_type: 'EXACT',
    matched: [{ name: 'get_weather', args: { city: 'Paris' }, expected_index: 0, actual_index: 1 }],
    missing: [{ name: 'get_time', args: { city: 'Paris' }, expected_index: 1 }],
    extra: [{ name: 'search', args: { q: '<Paris & "co">' }, actual_index: 0 }],
  },
})
const responseFailure = result({ score: 0.25, eval_status: 'FAILED', reason: 'too different' })
const cases: ReportedCase[] = [
  {
    suite: 'weather',
    name: 'ok',
    status: 'PASSED',
    results: [result({})],
    overall: [{ metric_name: 'response_match_score', score: 0.9, threshold: 0.8, eval_status: 'PASSED' }],
  },
  {
    suite: 'weather',
    name: 'bad',
    status: 'FAILED',
    results: [trajectoryFailure, responseFailure, result({ metric_name: 'token_usage_v1', eval_status: 'INFORMATIONAL', threshold: null })],
    overall: [{ metric_name: 'tool_trajectory_avg_score', score: 0, threshold: 1, eval_status: 'FAILED' }],
  },
  { suite: 'other|set', name: 'down', status: 'NOT_EVALUATED', results: [], overall: [], reason: 'cannot reach the agent (ECONNREFUSED)' },
]

describe('failureText', () => {
  it('lists expected and actual calls in their own orders for a trajectory', () => {
    const f = failureText(trajectoryFailure)
    expect(f.message).toBe('tool_trajectory_avg_score: score 0 below threshold 1')
    expect(f.body).toContain('expected calls: get_weather({"city":"Paris"}), get_time({"city":"Paris"})')
    expect(f.body).toContain('actual calls:   search({"q":"<Paris & \\"co\\">"}), get_weather({"city":"Paris"})')
    expect(f.body).toContain('at invocation 1 (inv-1)')
  })
  it('gives the threshold against the score, and the reason, for a scored criterion', () => {
    expect(failureText(responseFailure).body).toBe(
      'response_match_score: score 0.25 below threshold 0.8\nat invocation 1 (inv-1)\nexpected: score >= 0.8\nactual:   score 0.25\nreason: too different',
    )
  })
})

describe('junitXml', () => {
  const xml = junitXml(cases)
  it('has one test case per eval case, grouped by eval set, with the counts', () => {
    expect(xml.match(/<testcase /g)).toHaveLength(3)
    expect(xml).toContain('<testsuites name="evalstream" tests="3" failures="1" errors="1">')
    expect(xml).toContain('<testsuite name="weather" tests="2" failures="1" errors="0">')
    expect(xml).toContain('<testcase classname="weather" name="ok"/>')
  })
  it('has one failure per failed criterion, informational metrics never failing, and escapes markup', () => {
    const bad = xml.slice(xml.indexOf('name="bad"'), xml.indexOf('</testcase>', xml.indexOf('name="bad"')))
    expect(bad.match(/<failure /g)).toHaveLength(2)
    expect(bad).not.toContain('token_usage_v1')
    expect(bad).toContain('search({&quot;q&quot;:&quot;&lt;Paris &amp; \\&quot;co\\&quot;&gt;&quot;})')
  })
  it('replaces the control characters XML cannot carry, even escaped', () => {
    const odd = junitXml([{ suite: 's', name: 'a\u0001b\tc', status: 'PASSED', results: [], overall: [] }])
    expect(odd).toContain('name="a\ufffdb\tc"')
  })
  it('reports a case not evaluated as an error with the reason', () => {
    expect(xml).toContain('<error message="cannot reach the agent (ECONNREFUSED)">')
  })
})

describe('markdownSummary', () => {
  const md = markdownSummary(cases)
  it('headlines the pass count and has a row per case, pipes escaped', () => {
    expect(md.startsWith('## evalstream: 1 of 3 eval cases passed\n')).toBe(true)
    expect(md).toContain('| weather | bad | ❌ FAILED | tool_trajectory_avg_score 0 / 1 ❌ |')
    expect(md).toContain('| other\\|set | down | ⚪ NOT_EVALUATED | cannot reach the agent (ECONNREFUSED) |')
  })
  it('explains each failure with expected versus actual', () => {
    expect(md).toContain('<summary>weather / bad: tool_trajectory_avg_score: score 0 below threshold 1</summary>')
    expect(md).toContain('expected calls: get_weather')
  })
})

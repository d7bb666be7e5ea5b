import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readEvalSetResult } from '../../../src/adk/results-json.ts'
import { sharedPath } from '../../support/shared-data.ts'
import { testTempDir } from '../../support/temp-dir.ts'

const ROOT = new URL('../../../', import.meta.url).pathname
const SAMPLES = sharedPath('samples')
const EVALSET = join(ROOT, 'test/fixtures/weather.evalset.json')

function cli(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin/evalstream.js'), ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

const tmp = () => testTempDir('evalstream-cli-')

describe('evalstream eval', () => {
  for (const capture of ['adk-js-weather.sse', 'adk-js-weather-streaming.sse', 'adk-js-weather-scripted-streaming.sse']) {
    it(`scores the ADK JS capture ${capture} and exits 0`, () => {
      const run = cli(['eval', EVALSET, '--events', join(SAMPLES, capture)])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/tool_trajectory_avg_score\s+1\.0\s+1\s+PASSED/)
      expect(run.stdout).toMatch(/matched: get_weather\(\{"city":"Paris"\}\), get_time\(\{"city":"Paris"\}\)/)
      expect(run.stdout).toMatch(/case \S+: PASSED/)
    })
  }

  it('exits 1 and shows missing and extra calls when the trajectory does not match', () => {
    const dir = tmp()
    const set = JSON.parse(readFileSync(EVALSET, 'utf8'))
    set.eval_cases[0].conversation[0].intermediate_data = { tool_uses: [{ name: 'get_forecast', args: { city: 'Paris' } }] }
    writeFileSync(join(dir, 'set.evalset.json'), JSON.stringify(set))
    const run = cli(['eval', join(dir, 'set.evalset.json'), '--events', join(SAMPLES, 'adk-js-weather.sse')])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/tool_trajectory_avg_score\s+0\.0\s+1\s+FAILED/)
    expect(run.stdout).toMatch(/missing: get_forecast/)
    expect(run.stdout).toMatch(/extra: +get_weather.*get_time/)
  })

  it('reads events from stdin and writes an ADK EvalSetResult with --out and --json', () => {
    const dir = tmp()
    const out = join(dir, 'result.evalset_result.json')
    const body = readFileSync(join(SAMPLES, 'adk-js-weather.sse'), 'utf8')
    const run = cli(['eval', EVALSET, '--events', '-', '--out', out, '--json'], body)
    expect(run.code).toBe(0)
    const written = readEvalSetResult(readFileSync(out, 'utf8'), { source: out })
    const printed = readEvalSetResult(run.stdout, { source: 'stdout' })
    expect(written.ok && printed.ok).toBe(true)
    if (!written.ok) return
    const caseResult = written.result.eval_case_results[0]!
    expect(caseResult.final_eval_status).toBe('PASSED')
    expect(caseResult.overall_eval_metric_results.map((m) => m.metric_name)).toEqual([
      'tool_trajectory_avg_score',
      'response_match_score',
      'tool_call_count_v1',
      'inference_call_count_v1',
      'token_usage_v1',
      'invocation_duration_v1',
    ])
    // Read from a file: nothing timed the invocations, so no duration (as ADK for stored sessions).
    expect(caseResult.overall_eval_metric_results.at(-1)).toMatchObject({ score: null, eval_status: 'INFORMATIONAL', threshold: null })
    expect(readFileSync(out, 'utf8')).toMatch(/"final_eval_status": 1/)
  })

  it('exits 2 with the file and JSON path of a malformed eval set', () => {
    const dir = tmp()
    const bad = join(dir, 'bad.evalset.json')
    writeFileSync(bad, JSON.stringify({ eval_set_id: 'x', eval_cases: [{ eval_id: 'c', conversation: [{ user_content: 7 }] }] }))
    const run = cli(['eval', bad, '--events', join(SAMPLES, 'adk-js-weather.sse')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('bad.evalset.json')
    expect(run.stderr).toMatch(/eval_cases\[0\]\.conversation\[0\]\.user_content/)
    expect(run.stderr).not.toMatch(/\n\s+at /) // no stack trace
  })

  it('warns about a bad event with its index and still scores the good ones', () => {
    const lines = readFileSync(join(SAMPLES, 'adk-js-weather.sse'), 'utf8').split('\n\n')
    lines.splice(2, 0, 'data: {not json')
    const run = cli(['eval', EVALSET, '--events', '-'], lines.join('\n\n'))
    expect(run.stderr).toMatch(/event 2: /)
    expect(run.code).toBe(0)
  })

  it('asks for --case when the set has several cases, and exits 2 on usage errors', () => {
    const several = sharedPath('adk-fixtures', 'generated__weather_set_ui.evalset.json')
    const run = cli(['eval', several, '--events', join(SAMPLES, 'adk-js-weather.sse')])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/--case/)
    expect(cli(['eval', EVALSET]).code).toBe(2)
    expect(cli(['frobnicate']).code).toBe(2)
  })

  it('reports a configured criterion that does not exist as NOT_EVALUATED and exits 1', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ criteria: { made_up_metric_v9: 0.5 } }))
    const run = cli(['eval', EVALSET, '--events', join(SAMPLES, 'adk-js-weather.sse'), '--config', join(dir, 'config.json')])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/made_up_metric_v9\s+—\s+0\.5\s+NOT_EVALUATED/)
    expect(run.stdout).toMatch(/not implemented/)
  })
})

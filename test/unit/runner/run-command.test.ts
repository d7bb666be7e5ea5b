/**
 * `evalstream run` as the CLI sees it, against the loopback ADK stand-in: exit codes, the table,
 * --out / --json as ADK's EvalSetResult, `file:ids`, captures, and the two progress displays.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readEvalSetResult } from '../../../src/adk/results-json.ts'
import { runCommand } from '../../../src/adapter/node/run-command.ts'
import { runEval } from '../../../src/adapter/node/eval-command.ts'
import { askingCase, CONFIG, WEATHER_TOOLS as TOOLS } from '../../support/weather-fixtures.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const caseOf = askingCase

let dir: string
let stub: StubAgent
let good: string
let mixed: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalstream-run-'))
  good = join(dir, 'good.evalset.json')
  writeFileSync(good, JSON.stringify({ eval_set_id: 'good', eval_cases: [caseOf('one', 'Paris?'), caseOf('two', 'Paris now?')] }))
  mixed = join(dir, 'mixed.evalset.json')
  writeFileSync(
    mixed,
    JSON.stringify({
      eval_set_id: 'mixed',
      eval_cases: [caseOf('passes', 'Paris?'), caseOf('fails', 'Paris?', [TOOLS[1]!]), caseOf('broken', 'Paris? [500]')],
    }),
  )
  writeFileSync(join(dir, 'test_config.json'), JSON.stringify(CONFIG))
  stub = await startStubAgent()
})
afterAll(async () => {
  await stub?.close()
  rmSync(dir, { recursive: true, force: true })
})

type Ran = { code: number; out: string; err: string }
async function cli(args: string[], isTTY = false): Promise<Ran> {
  let out = ''
  let err = ''
  const code = await runCommand(args, { env: {}, out: (t) => void (out += t), err: (t) => void (err += t), isTTY, now: () => 1700000000 })
  return { code, out, err }
}
const agentArgs = () => ['--agent', stub.url, '--app', 'weather_agent']

describe('evalstream run', () => {
  afterEach(() => {
    stub.sessions.length = 0
  })

  it('exit 0 when every case passes; prints the per-invocation table and the adk eval tally; plain progress lines', async () => {
    const r = await cli([good, ...agentArgs()])
    expect(r.code).toBe(0)
    expect(r.out).toContain('eval case one')
    expect(r.out).toMatch(/tool_trajectory_avg_score\s+1\.0\s+1\s+PASSED/)
    expect(r.out).toContain('eval set good: Tests passed: 2, Tests failed: 0')
    expect(r.err).toContain('evalstream run: 2 case runs, 2 invocations')
    expect(r.err).toMatch(/\[1\/2\] PASSED good\/(one|two) \(1 invocations, [\d.]+ s\)/)
    expect(r.err).not.toContain('\x1b[')
  })

  it('exit 1 when a case fails or is not evaluated; the broken case names the agent error; the others ran', async () => {
    const r = await cli([mixed, ...agentArgs(), '--parallel', '1'])
    expect(r.code).toBe(1)
    expect(r.out).toContain('case passes: PASSED')
    expect(r.out).toContain('case fails: FAILED')
    expect(r.out).toMatch(/case broken: NOT_EVALUATED\n {2}reason: a turn \(POST \/run_sse\): the agent answered 500/)
    expect(r.out).toContain('eval set mixed: Tests passed: 1, Tests failed: 2')
    expect(r.err).toMatch(/NOT_EVALUATED mixed\/broken .*answered 500/)
  })

  it('file:ids runs only those cases; --out and --json give the same ADK EvalSetResult', async () => {
    const out = join(dir, 'out', 'result.json')
    const r = await cli([`${mixed}:passes`, ...agentArgs(), '--out', out, '--json'])
    expect(r.code).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(r.out.trimEnd())
    const parsed = readEvalSetResult(r.out)
    if (!parsed.ok) throw new Error(parsed.error.message)
    expect(parsed.result.eval_set_result_id).toBe('weather_agent_mixed_1700000000.0')
    expect(parsed.result.eval_case_results.map((c) => [c.eval_id, c.final_eval_status])).toEqual([['passes', 'PASSED']])
    expect(stub.sessions).toHaveLength(1)
  })

  it('several eval sets: --out is a directory of ADK-named files, --json an array', async () => {
    const out = join(dir, 'many')
    const r = await cli([good, `${mixed}:passes`, ...agentArgs(), '--out', out, '--json'])
    expect(r.code).toBe(0)
    expect((JSON.parse(r.out) as Array<{ eval_set_id: string }>).map((s) => s.eval_set_id)).toEqual(['good', 'mixed'])
    expect(JSON.parse(readFileSync(join(out, 'weather_agent_good_1700000000.0.evalset_result.json'), 'utf8')).eval_set_id).toBe('good')
  })

  it('--capture keeps the /run_sse bytes, which evalstream eval scores the same', async () => {
    const capture = join(dir, 'capture')
    const r = await cli([good, ...agentArgs(), '--capture', capture, '--json'])
    type Overall = Array<{ metric_name: string; score: number | null }>
    const live = JSON.parse(r.out).eval_case_results as Array<{ eval_id: string; overall_eval_metric_results: Overall }>
    // Every score is the same except the wall time, which only a live run measures (ADK: n/a when
    // the invocations were read back rather than run).
    const scores = (overall: Overall) => overall.filter((m) => m.metric_name !== 'invocation_duration_v1').map((m) => m.score)
    const duration = (overall: Overall) => overall.find((m) => m.metric_name === 'invocation_duration_v1')?.score
    for (const c of live) {
      const offline = await runEval({
        evalSetPath: good,
        caseId: c.eval_id,
        eventsName: 'x.sse',
        eventsText: readFileSync(join(capture, 'good', `${c.eval_id}.sse`), 'utf8'),
        env: {},
      })
      if (!offline.ok) throw new Error(offline.error)
      const offlineOverall = offline.evalSetResult.eval_case_results[0]!.overall_eval_metric_results
      expect(scores(offlineOverall)).toEqual(scores(c.overall_eval_metric_results))
      expect(duration(c.overall_eval_metric_results)).toBeGreaterThanOrEqual(0)
      expect(duration(offlineOverall)).toBeNull()
    }
  })

  it('on a terminal the status line is redrawn in place and only failures get their own line', async () => {
    const r = await cli([mixed, ...agentArgs(), '--parallel', '1'], true)
    expect(r.err).toContain('\r\x1b[2Kevalstream run: 0/3 cases, 0/3 invocations, 0 failed, 0 not evaluated, 0 running')
    // The progress line is redrawn with ESC[2K (erase line): the control character is the point.
    // deno-lint-ignore no-control-regex
    expect(r.err).toMatch(/\r\x1b\[2K\[\d\/3\] FAILED mixed\/fails/)
    expect(r.err).not.toMatch(/\] PASSED/)
    expect(r.err.endsWith('evalstream run: 3/3 cases, 2/3 invocations, 1 failed, 1 not evaluated, 0 running\n')).toBe(true)
  })

  it('exit 2 for bad input, naming the file or the flag', async () => {
    const bad = join(dir, 'bad.evalset.json')
    writeFileSync(bad, '{"eval_set_id": "bad", "eval_cases": [{"eval_id": 3}]}')
    const r1 = await cli([good, bad, ...agentArgs()])
    expect(r1.code).toBe(2)
    expect(r1.err).toContain(bad)
    expect(stub.sessions).toHaveLength(0)
    const r2 = await cli([join(dir, 'missing.evalset.json'), ...agentArgs()])
    expect([r2.code, r2.err]).toEqual([2, expect.stringContaining('missing.evalset.json')])
    const r3 = await cli([`${good}:nope`, ...agentArgs()])
    expect([r3.code, r3.err]).toEqual([2, expect.stringContaining("no eval case 'nope'")])
    expect((await cli([good, '--app', 'a'])).err).toContain('--agent URL is required')
    expect(await cli(['--help'])).toMatchObject({ code: 0, out: expect.stringContaining('usage: evalstream run EVALSET') })
    expect((await cli([good, ...agentArgs(), '--parallel', 'two'])).code).toBe(2)
    expect((await cli([good, ...agentArgs(), '--turn-timeout', '0'])).err).toContain('--turn-timeout must be a positive number of seconds')
  })
})

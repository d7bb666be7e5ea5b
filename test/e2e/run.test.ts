/**
 * `evalstream run` against a REAL ADK for JavaScript api_server (the scripted weather agent):
 * case by case, the live scores equal what `evalstream eval` gives on the capture of the same run;
 * an agent that is down makes every case NOT_EVALUATED with the reason (exit 1); a bad eval set is
 * exit 2 naming the file. Needs: npm install --prefix test/e2e/agent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runEval } from '../../src/adapter/node/eval-command.ts'
import { runCommand } from '../../src/adapter/node/run-command.ts'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { REFUSED_ORIGIN } from '../support/refused-port.ts'
import { WEATHER_CONFIG, weatherEvalSet } from '../support/weather-cases.ts'

const APP = 'scripted_weather_agent'
const FIXTURE = new URL('../fixtures/weather.evalset.json', import.meta.url).pathname
const FIXTURE_CONFIG = new URL('../fixtures/weather.test_config.json', import.meta.url).pathname

type Json = Record<string, any>
let agent: AdkAgent
let dir: string
let evalSetPath: string
let configPath: string

beforeAll(async () => {
  agent = await startAdkAgent({ apps: [APP], chunkDelayMs: 0 })
  dir = mkdtempSync(join(tmpdir(), 'evalstream-run-e2e-'))
  evalSetPath = join(dir, 'weather_run.evalset.json')
  configPath = join(dir, 'config.json')
  writeFileSync(evalSetPath, JSON.stringify(weatherEvalSet(8)))
  writeFileSync(configPath, JSON.stringify(WEATHER_CONFIG))
}, 120_000)
afterAll(async () => {
  await agent?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function cli(args: string[]) {
  let out = ''
  let err = ''
  const code = await runCommand(args, { env: {}, out: (t) => void (out += t), err: (t) => void (err += t), isTTY: false })
  return { code, out, err }
}

/** Every metric but the wall time, which only a live run measures (a capture read back has none). */
const replayable = (m: Json) => m.metric_name !== 'invocation_duration_v1'

/** Scores by metric, overall and per invocation, of an EvalCaseResult in ADK's file shape. */
function scoresOf(caseResult: Json) {
  return {
    status: caseResult.final_eval_status,
    overall: Object.fromEntries(caseResult.overall_eval_metric_results.filter(replayable).map((m: Json) => [m.metric_name, m.score])),
    perInvocation: caseResult.eval_metric_result_per_invocation.map((p: Json) =>
      Object.fromEntries(p.eval_metric_results.filter(replayable).map((m: Json) => [m.metric_name, m.score]))
    ),
  }
}

describe('evalstream run against the real ADK JS agent', () => {
  it('each case scores what evalstream eval gives on the capture of the same run', async () => {
    const capture = join(dir, 'capture')
    const r = await cli([
      evalSetPath,
      '--agent',
      agent.url,
      '--app',
      APP,
      '--config',
      configPath,
      '--parallel',
      '3',
      '--capture',
      capture,
      '--json',
    ])
    // Every fifth case expects the wrong tools: the run fails, as it should.
    expect(r.code).toBe(1)
    const live = JSON.parse(r.out) as Json
    expect(live.eval_case_results).toHaveLength(8)
    const statuses = live.eval_case_results.map((c: Json) => c.final_eval_status)
    expect(statuses.filter((s: number) => s === 1).length).toBe(7)
    expect(statuses.filter((s: number) => s === 2).length).toBe(1)
    for (const c of live.eval_case_results as Json[]) {
      expect(c.session_id).not.toBe('')
      const offline = await runEval({
        evalSetPath,
        configPath,
        caseId: c.eval_id,
        eventsName: `${c.eval_id}.sse`,
        eventsText: readFileSync(join(capture, 'weather_run', `${c.eval_id}.sse`), 'utf8'),
        env: {},
      })
      if (!offline.ok) throw new Error(offline.error)
      const expected = scoresOf(JSON.parse(offline.evalSetResultJson).eval_case_results[0])
      expect({ id: c.eval_id, ...scoresOf(c) }).toEqual({ id: c.eval_id, ...expected })
    }
    // A two-turn case really had two invocations, each scored.
    const twoTurns = live.eval_case_results.find((c: Json) => c.eval_id.startsWith('case_03'))
    expect(twoTurns.eval_metric_result_per_invocation).toHaveLength(2)
    // response_match_score is a real ROUGE score here, not a trivially equal text.
    const rouge = live.eval_case_results[0].overall_eval_metric_results.find((m: Json) => m.metric_name === 'response_match_score').score
    expect(rouge).toBeGreaterThan(0.5)
    expect(rouge).toBeLessThan(1)
  }, 120_000)

  it('the bundled fixture passes against the scripted agent (the README command)', async () => {
    const r = await cli([FIXTURE, '--agent', agent.url, '--app', APP, '--config', FIXTURE_CONFIG])
    expect(r.code).toBe(0)
    expect(r.out).toContain('case paris_weather_and_time: PASSED')
  })

  it('agent down: every case NOT_EVALUATED with the reason, exit 1', async () => {
    const r = await cli([
      `${evalSetPath}:case_00_paris,case_01_tokyo`,
      '--agent',
      REFUSED_ORIGIN,
      '--app',
      APP,
      '--config',
      configPath,
      // The agent is down for good here: waiting for it to listen (the loopback default) proves nothing.
      '--wait',
      '0',
    ])
    expect(r.code).toBe(1)
    expect(r.out.match(/: NOT_EVALUATED\n {2}reason: creating a session .*cannot reach the agent.*ECONNREFUSED/g)).toHaveLength(2)
  })

  it('a wrong app: the agent reports the error in its stream; the case is NOT_EVALUATED with it, exit 1', async () => {
    const r = await cli([`${evalSetPath}:case_00_paris`, '--agent', agent.url, '--app', 'no_such_app', '--config', configPath])
    expect(r.code).toBe(1)
    expect(r.out).toMatch(
      /case case_00_paris: NOT_EVALUATED\n {2}reason: turn 1: the agent reported an error: Agent 'no_such_app' not found/,
    )
  })

  it('a bad eval set: exit 2 naming the file, before any agent call', async () => {
    const bad = join(dir, 'bad.evalset.json')
    writeFileSync(bad, JSON.stringify({ eval_set_id: 'bad', eval_cases: [{ eval_id: 'x', conversation: 'nope' }] }))
    const r = await cli([bad, '--agent', agent.url, '--app', APP])
    expect(r.code).toBe(2)
    expect(r.err).toContain(bad)
  })
})

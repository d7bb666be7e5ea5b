/**
 * `evalstream eval --events traces.jsonl` with an OTLP JSON export: scored by the same engine as
 * the equivalent ADK event stream, criterion by criterion; the trace adds the measured duration.
 * Covers: src/adapter/node/eval-command.ts, src/adapter/node/otlp-events.ts, src/otlp/file.ts.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runEval } from '../../../src/adapter/node/eval-command.ts'
import { TURNS } from '../../fixtures/otlp/scenario.ts'
import { adkEventsNdjson } from './support/adk-events.ts'
import { FIXTURE_DIR, fixtureText } from './support/fixtures.ts'

const EVALSET = join(FIXTURE_DIR, 'weather.evalset.json')
const ENV = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' }

type Row = { metric_name: string; invocation_index: number; score: number | null; eval_status: string }
const rows = (results: Row[]) =>
  results.map((r) => ({ metric: r.metric_name, index: r.invocation_index, score: r.score, status: r.eval_status }))

describe('evalstream eval with an OTLP JSON export', () => {
  it.each(['adk-python-v1.jsonl', 'adk-python-v2.jsonl', 'adk-js.jsonl', 'adk-go.jsonl', 'genai-semconv.jsonl'])(
    '%s scores as the same run as ADK events does',
    async (file) => {
      const otlp = await runEval({ evalSetPath: EVALSET, eventsName: file, eventsText: fixtureText(file), env: ENV, now: 0 })
      const events = await runEval({ evalSetPath: EVALSET, eventsName: 'run.ndjson', eventsText: adkEventsNdjson(), env: ENV, now: 0 })
      if (!otlp.ok || !events.ok) throw new Error(JSON.stringify([otlp, events]))
      expect(otlp.warnings).toEqual([])
      expect(otlp.passed).toBe(true)
      const durations = otlp.results.filter((r) => r.metric_name === 'invocation_duration_v1').map((r) => r.score)
      expect(durations).toEqual(TURNS.map((t) => t.rootEnd / 1000))
      const withoutDuration = (r: Row[]) => rows(r).filter((x) => x.metric !== 'invocation_duration_v1')
      expect(withoutDuration(otlp.results)).toEqual(withoutDuration(events.results))
      expect(withoutDuration(otlp.results).map((r) => r.metric)).toContain('tool_trajectory_avg_score')
    },
  )

  it('with content capture off, scores what the spans know and warns what is unknown', async () => {
    const outcome = await runEval({
      evalSetPath: EVALSET,
      eventsName: 'off.jsonl',
      eventsText: fixtureText('adk-python-v1-content-off.jsonl'),
      env: ENV,
      now: 0,
    })
    if (!outcome.ok) throw new Error(outcome.error)
    expect(outcome.passed).toBe(false)
    expect(outcome.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/user content unknown: the agent exported no message content/)]),
    )
    expect(outcome.results.find((r) => r.metric_name === 'invocation_duration_v1')?.score).toBe(3)
    // What the spans cannot show is NOT_EVALUATED with the reason, not a wrong answer.
    const byMetric = (name: string) => outcome.results.find((r) => r.metric_name === name)
    for (const [metric, field] of [['response_match_score', 'final response'], ['tool_trajectory_avg_score', 'tool arguments']] as const) {
      expect(byMetric(metric)).toMatchObject({
        score: null,
        eval_status: 'NOT_EVALUATED',
        reason: expect.stringMatching(new RegExp(`^${field} unknown: the agent exported no message content`)),
      })
    }
    expect(byMetric('tool_call_count_v1')).toMatchObject({ score: 1 })
  })

  it('asks which conversation to score when the export holds several', async () => {
    const both = fixtureText('adk-go.jsonl') + fixtureText('adk-js.jsonl')
    const outcome = await runEval({ evalSetPath: EVALSET, eventsName: 'both.jsonl', eventsText: both, env: ENV, now: 0 })
    expect(outcome).toEqual({
      ok: false,
      error: expect.stringMatching(/holds 2 conversations; choose one with --conversation \(session-js, session-go\)/),
    })
    const chosen = await runEval({
      evalSetPath: EVALSET,
      eventsName: 'both.jsonl',
      eventsText: both,
      conversationId: 'session-js',
      env: ENV,
      now: 0,
    })
    expect(chosen.ok && chosen.passed).toBe(true)
  })
})

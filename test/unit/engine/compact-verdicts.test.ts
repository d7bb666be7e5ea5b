/**
 * A completed invocation keeps only the seqs of its results when the host logs them
 * (`EngineOptions.loggedResults`): the snapshot, the case result, a late event and a closing step
 * read them back. The host here is a log of JSON texts, as a session's SQLite log keeps them, so
 * nothing read back shares an object with what the engine emitted.
 * Covers: src/engine/verdicts.ts, src/engine/session-engine.ts.
 */
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { JudgeRunner } from '../../../src/engine/metric-run.ts'
import type { CriterionResultData, EngineEmission, SessionEngine, SessionSpec } from '../../../src/engine/types.ts'
import type { JudgeAnswer, JudgeRequest } from '../../../src/core/criterion.ts'
import { ask, call, decodedEvents, expectedTurn, say } from '../../support/city-turns.ts'

const CITY = ['Paris', 'Lima', 'Oslo']
const spec = (criteria: Record<string, unknown>): SessionSpec => ({
  session_id: 's1',
  eval_case: { eval_id: 'three', conversation: CITY.map((city, k) => expectedTurn(k, city)) },
  eval_config: { criteria },
})
const CRITERIA = { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 }

const invocation = (k: number) => [
  ask(`i${k}`, `Weather in ${CITY[k]}?`),
  call(`i${k}`, 'get_weather', CITY[k]!),
  call(`i${k}`, 'get_time', CITY[k]!),
  say(`i${k}`, `In ${CITY[k]} it is sunny and 21C.`),
]

/** A result log as a host keeps one: numbered from 1, each result's data stored as JSON text. */
class TextLog {
  rows: Array<{ type: string; text: string } | undefined> = []
  /** The seqs each `loggedResults` call asked for. */
  asked: number[][] = []
  append(body: EngineEmission): number {
    this.rows.push({ type: body.type, text: JSON.stringify(body.data) })
    return this.rows.length
  }
  read = (seqs: readonly number[]): Map<number, CriterionResultData> => {
    this.asked.push([...seqs])
    const found = new Map<number, CriterionResultData>()
    for (const seq of seqs) {
      const row = this.rows[seq - 1]
      if (row?.type === 'criterion.result') found.set(seq, JSON.parse(row.text))
    }
    return found
  }
}

type Host = { engine: SessionEngine; emitted: EngineEmission[]; log: TextLog }

function host(criteria: Record<string, unknown>, logged: boolean, judge?: JudgeRunner): Host {
  const emitted: EngineEmission[] = []
  const log = new TextLog()
  const created = createSessionEngine({
    spec: spec(criteria),
    emit: (body) => {
      emitted.push(body)
      return logged ? log.append(body) : undefined
    },
    ...(logged ? { loggedResults: log.read } : {}),
    ...(judge ? { judge } : {}),
  })
  if (!created.ok) throw new Error(created.problem.detail)
  return { engine: created.engine, emitted, log }
}

function feed(h: Host, list: object[]): void {
  for (const item of decodedEvents(list)) h.engine.push(item)
}

describe('completed invocations keep only their results seqs when the host logs the results', () => {
  it('results, the snapshot and the case result are those of an engine that held every result', async () => {
    const list = [...invocation(0), ...invocation(1), ...invocation(2)]
    const held = host(CRITERIA, false)
    const compact = host(CRITERIA, true)
    feed(held, list)
    feed(compact, list)
    expect(compact.engine.snapshot()).toEqual(held.engine.snapshot())
    // Invocations 0 and 1 are done (2 may still take events): their results were read back.
    const metrics = held.engine.snapshot().metrics.length
    expect(compact.log.asked.at(-1)).toHaveLength(2 * metrics)
    expect(await compact.engine.end()).toEqual(await held.engine.end())
    expect(compact.emitted).toEqual(held.emitted)
    expect(compact.engine.snapshot()).toEqual(held.engine.snapshot())
  })

  it('the snapshot after the end takes the results the case result was built from, reading nothing back', async () => {
    const list = [...invocation(0), ...invocation(1), ...invocation(2)]
    const held = host(CRITERIA, false)
    const compact = host(CRITERIA, true)
    feed(held, list)
    feed(compact, list)
    await held.engine.end()
    await compact.engine.end()
    const reads = compact.log.asked.length
    expect(compact.engine.snapshot()).toEqual(held.engine.snapshot())
    expect(JSON.stringify(compact.engine.snapshot())).toBe(JSON.stringify(held.engine.snapshot()))
    expect(compact.log.asked).toHaveLength(reads)
  })

  it('the engine does not hold them: a result gone from the log is NOT_EVALUATED in the snapshot, with the reason', () => {
    const compact = host(CRITERIA, true)
    feed(compact, [...invocation(0), ...invocation(1)])
    const trajectory = compact.emitted.findIndex((e) =>
      e.type === 'criterion.result' && (e.data as CriterionResultData).metric_name === 'tool_trajectory_avg_score'
    )
    compact.log.rows[trajectory] = undefined
    const first = compact.engine.snapshot().invocations[0]!.results
    expect(first.tool_trajectory_avg_score).toEqual({
      score: null,
      status: 'NOT_EVALUATED',
      details: {},
      reason: 'the result is no longer in the session log',
    })
    expect(first.response_match_score).toMatchObject({ score: 1, status: 'PASSED' })
  })

  it('a late event of a compacted invocation reopens it as if its results had been held', async () => {
    const [q0, w0, t0, a0] = invocation(0) as [object, object, object, object]
    const list = [q0, w0, say('i0', 'In Paris'), ...invocation(1), ...invocation(2), t0, a0]
    const held = host(CRITERIA, false)
    const compact = host(CRITERIA, true)
    feed(held, list)
    feed(compact, list)
    // Only the late events read anything back: invocation 0's results, to reopen it.
    expect(compact.log.asked).toHaveLength(1)
    expect(await compact.engine.end()).toEqual(await held.engine.end())
    expect(compact.emitted).toEqual(held.emitted)
    const revisions = compact.engine.snapshot().invocations[0]!.results.tool_trajectory_avg_score
    expect(revisions).toMatchObject({ score: 1, status: 'PASSED' })
  })

  it('an invocation a judge is still working for is compacted once the answer is logged, not before', async () => {
    const calls: Array<{ requests: JudgeRequest[]; answer(): void }> = []
    const judge: JudgeRunner = (requests) =>
      new Promise<JudgeAnswer[]>((resolve) => {
        const text = JSON.stringify({ reasoning: 'r', is_the_agent_response_valid: 'valid' })
        calls.push({ requests, answer: () => resolve(requests.map((r) => ({ id: r.id, samples: [{ text }] }))) })
      })
    const criteria = { ...CRITERIA, final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } }
    const compact = host(criteria, true, judge)
    feed(compact, [...invocation(0), ...invocation(1)])
    expect(calls).toHaveLength(2)
    compact.engine.snapshot()
    // Invocation 0 waits for its judge: it holds its results, nothing is read back.
    expect(compact.log.asked).toEqual([])
    calls[0]!.answer()
    calls[1]!.answer()
    await compact.engine.judgesSettled!()
    const snapshot = compact.engine.snapshot()
    expect(compact.log.asked.at(-1)!.length).toBeGreaterThan(0)
    expect(snapshot.invocations[0]!.results.final_response_match_v2).toMatchObject({ score: 1, status: 'PASSED' })
    const held = host(criteria, false, async (requests) => {
      const text = JSON.stringify({ reasoning: 'r', is_the_agent_response_valid: 'valid' })
      return requests.map((r) => ({ id: r.id, samples: [{ text }] }))
    })
    feed(held, [...invocation(0), ...invocation(1)])
    await held.engine.judgesSettled!()
    expect(snapshot).toEqual(held.engine.snapshot())
    expect(await compact.engine.end()).toEqual(await held.engine.end())
  })
})

/**
 * An ended session's snapshot is written from its criterion results' stored texts, cut out and put
 * together without a parse: its bytes are those of the snapshot with every result read back as an
 * object and stringified (the path it replaced), for both stores, with results missing, errors,
 * several metrics, reopened invocations (revisions), results gone from the log and stored texts
 * full of escapes.
 * Covers: src/session/snapshot-text.ts, src/session/ended-answers.ts, src/session/result-log.ts,
 * src/session/sqlite/results.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { loggedScore } from '../../../src/engine/verdicts.ts'
import type { CriterionResultData } from '../../../src/engine/types.ts'
import { EndedAnswers } from '../../../src/session/ended-answers.ts'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'
import { memberRanges, snapshotText } from '../../../src/session/snapshot-text.ts'
import { memorySessionStore, sqliteSessionStore } from '../../../src/session/store.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { jsonRequest } from '../../support/json-request.ts'

/** The UTF-8 text of an answer's bytes (undefined stays undefined). */
const decoded = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes))

const STORES = {
  memory: () => memorySessionStore(),
  sqlite: () => sqliteSessionStore(sqlFromDatabaseSync(new DatabaseSync(':memory:'))),
}

const CITIES = ['Paris', 'Lima', 'Oslo']
const CASE = {
  eval_id: 'texts',
  conversation: CITIES.map((city, k) => ({
    invocation_id: `expected-${k}`,
    user_content: { role: 'user', parts: [{ text: `Weather in ${city}?` }] },
    final_response: { role: 'model', parts: [{ text: `In ${city} it is "sunny" \\ 21C.` }] },
    intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city } }] },
  })),
}
const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.5 } }
const calls = (k: number, city = CITIES[k]) => ({
  invocationId: `i${k}`,
  author: 'agent',
  content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city, note: 'a "quoted" {brace} \\ \u2028' } } }] },
})
const says = (k: number, text: string) => ({ invocationId: `i${k}`, author: 'agent', content: { role: 'model', parts: [{ text }] } })

/** The ways a session's results come out: all there, reopened, errors, an invocation that never answered. */
const SESSIONS: Record<string, { config?: unknown; evalCase?: unknown; bodies: string[] }> = {
  'several metrics': { bodies: [ndjson([calls(0), says(0, 'In Paris it is "sunny" \\ 21C.'), calls(1), says(1, 'Lima: rain')])] },
  'reopened invocations': {
    bodies: [ndjson([calls(0), says(0, 'In Paris')]), ndjson([calls(0, 'Nice'), says(0, 'In Paris it is sunny')]), ndjson([calls(1)])],
  },
  'errors': { bodies: [`${JSON.stringify(calls(0))}\n{"not json\n${JSON.stringify(says(0, 'x'))}\n`, '[1,2]'] },
  'no eval case': {
    config: { criteria: { response_match_score: 0.5, tool_trajectory_avg_score: 1 } },
    evalCase: null,
    bodies: [ndjson([says(0, 'hi')])],
  },
}

function ndjson(events: unknown[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n'
}

describe.each(Object.keys(STORES) as Array<keyof typeof STORES>)('an ended snapshot from stored texts (%s store)', (kind) => {
  it.each(Object.keys(SESSIONS))('writes the bytes the parsed results wrote: %s', async (name) => {
    const store = STORES[kind]()
    const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
    const app = createApp({ store, createEngine })
    const { config = CONFIG, evalCase = CASE, bodies } = SESSIONS[name]!
    const create = await app.fetch(
      jsonRequest('POST', '/v1/sessions', { session_id: 's', eval_config: config, ...(evalCase ? { eval_case: evalCase } : {}) }),
    )
    expect(create.status).toBe(201)
    for (const body of bodies) {
      await app.fetch(
        new Request('http://x/v1/sessions/s/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } }),
      )
    }
    expect((await app.fetch(jsonRequest('POST', '/v1/sessions/s/end'))).status).toBe(200)
    const session = (await store.get('s', createEngine))!
    const got = await (await app.fetch(jsonRequest('GET', '/v1/sessions/s'))).text()
    // The path it replaced: every result parsed back into an object, the whole snapshot stringified.
    const { case_result, ...rest } = session.snapshot()
    expect(got).toBe(JSON.stringify({ ...rest, case_result }))
    expect(got).toBe(decoded(await session.snapshotBytes()))
  })
})

describe('snapshotText', () => {
  const nasty = ['', '"', '\\', '\\"', '"}', '{"score":1}', ',"details":{', '\u0000\u001f\u2028', '\ud800', 'é😀', '}]"\\\\"']
  const pick = <T>(xs: readonly T[], n: number) => xs[n % xs.length]!

  function logged(n: number): CriterionResultData {
    const details: Record<string, unknown> = n % 5 === 0 ? {} : {
      [pick(nasty, n)]: [pick(nasty, n + 1), { x: [[], {}, null, -0, 1e21, 0.1] }],
      nested: { s: pick(nasty, n + 2), deeper: [[[pick(nasty, n + 3)]]] },
    }
    return {
      invocation_id: pick(nasty, n),
      invocation_index: n,
      metric_name: 'm',
      score: n % 3 === 0 ? null : n / 7,
      threshold: n % 2 ? 0.5 : null,
      eval_status: n % 4 === 0 ? 'FAILED' : 'PASSED',
      details,
      ...(n % 2 ? { reason: pick(nasty, n + 4) } : {}),
      ...(n % 3 === 1 ? { revision: n } : {}),
    } as CriterionResultData
  }

  it('cuts each logged score out of its text as stringifying its parse would write it', () => {
    const log = createResultLog(memoryResultStorage())
    const metrics = ['a', 'b', 'c']
    const invocations = 40
    const seqs = new Int32Array(invocations * metrics.length)
    for (let i = 0; i < seqs.length; i++) {
      // Some results never came (-1), some seqs are no longer in the log (past its end).
      seqs[i] = i % 11 === 5 ? -1 : i % 13 === 7 ? 10_000 + i : log.append({ type: 'criterion.result', key: `k${i}`, data: logged(i) }).seq
    }
    const snapshot = {
      session_id: 's"\\',
      ended: true,
      metrics,
      invocations: Array.from(
        { length: invocations },
        (_, n) => ({ invocation_id: pick(nasty, n), invocation_index: n, completed: n % 2 === 0, results: {} }),
      ),
    }
    const wanted = [...seqs].filter((s) => s >= 0)
    const text = snapshotText(snapshot, seqs, log.dataTextsAt(wanted, 'criterion.result'), { last_seq: 3, subscribers: 0 })
    const read = log.eventsAt(wanted, 'criterion.result')
    const parsed = {
      ...snapshot,
      invocations: snapshot.invocations.map((inv, n) => ({
        ...inv,
        results: Object.fromEntries(metrics.map((m, i) => {
          const seq = seqs[n * metrics.length + i]!
          return [m, seq < 0 ? null : loggedScore(read.get(seq)?.data as CriterionResultData | undefined)]
        })),
      })),
      last_seq: 3,
      subscribers: 0,
    }
    expect(text).toBe(JSON.stringify(parsed))
  })

  it('finds the members of a text as JSON.stringify writes it, and no others', () => {
    const names = ['invocation_id', 'score', 'details', 'reason', 'revision', 'absent']
    for (let n = 0; n < 60; n++) {
      const text = JSON.stringify(logged(n))
      const at = memberRanges(text, names)!
      const data = JSON.parse(text) as Record<string, unknown>
      names.forEach((name, i) => {
        if (data[name] === undefined) expect(at[2 * i]).toBe(-1)
        else expect(JSON.parse(text.slice(at[2 * i], at[2 * i + 1]))).toEqual(data[name])
      })
    }
    for (const text of ['[]', '{ "a": 1 }', '{"a":1', '{"a":"x}', '{"a":1}x', '"{}"']) expect(memberRanges(text, ['a'])).toBeUndefined()
    expect([...memberRanges('{}', ['a'])!]).toEqual([-1, -1])
  })

  it('leaves metric names an object would reorder to the path that parses', () => {
    const snapshot = { session_id: 's', ended: true, metrics: ['b', '1'], invocations: [] }
    expect(snapshotText(snapshot, new Int32Array(0), new Map(), {})).toBeUndefined()
  })

  it("answers a result no longer in the log as the parsed path does, through an ended session's answers", () => {
    const log = createResultLog(memoryResultStorage())
    const { seq } = log.append({ type: 'case.result', key: 'case', data: { eval_id: 'c' } })
    const snapshot = {
      session_id: 's',
      ended: true,
      metrics: ['m'],
      invocations: [{ invocation_id: 'i', invocation_index: 0, completed: true, results: {} }],
    }
    const answers = new EndedAnswers(snapshot, seq, log, Int32Array.of(99))
    const { case_result, ...rest } = answers.snapshot()
    expect(decoded(answers.snapshotBytes())).toBe(JSON.stringify({ ...rest, case_result }))
    expect(decoded(answers.snapshotBytes())).toContain('"reason":"the result is no longer in the session log"')
  })
})

describe('the snapshot right after the end', () => {
  it('is written from the results the end read, while they live, with the same bytes and no read of the log', async () => {
    const store = STORES.sqlite()
    const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
    const app = createApp({ store, createEngine })
    await app.fetch(jsonRequest('POST', '/v1/sessions', { session_id: 's', eval_config: CONFIG, eval_case: CASE }))
    const body = ndjson([calls(0), says(0, 'In Paris'), calls(0, 'Nice'), says(0, 'In Paris it is sunny'), calls(1), says(1, 'Lima')])
    await app.fetch(
      new Request('http://x/v1/sessions/s/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } }),
    )
    await app.fetch(jsonRequest('POST', '/v1/sessions/s/end'))
    const session = (await store.get('s', createEngine))!
    const { case_result, ...withResults } = session.snapshot()
    const { last_seq, subscribers, ...ended } = withResults
    const seqs = Int32Array.from(
      (ended.invocations as Array<{ invocation_index: number }>).flatMap((inv) =>
        (ended.metrics as string[]).map((metric) =>
          session.log.keys(0, 1000).findLast((k) => k.key.startsWith(`result/${inv.invocation_index}/${metric}/`))?.seq ?? -1
        )
      ),
    )
    expect(seqs.every((seq) => seq > 0)).toBe(true)
    const kept = { ...ended, invocations: (ended.invocations as object[]).map((inv) => ({ ...inv, results: {} })) } as never
    let reads = 0
    const log = new Proxy(session.log, {
      get(target, key) {
        if (key === 'dataTextsAt' || key === 'eventsAt') reads++
        const value = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const held = ended as never
    const fresh = new EndedAnswers(kept, session.endSeq!, log, seqs, { snapshot: new WeakRef(held) })
    const fromTexts = new EndedAnswers(kept, session.endSeq!, session.log, seqs)
    const expected = JSON.stringify({ ...withResults, case_result })
    expect(decoded(fresh.snapshotBytes())).toBe(expected)
    expect(reads).toBe(0)
    expect(decoded(fromTexts.snapshotBytes())).toBe(expected)
    // Used once, then let go: the next one reads the texts.
    expect(decoded(fresh.snapshotBytes())).toBe(expected)
    expect(reads).toBe(1)
    expect(last_seq).toBe(session.log.lastSeq())
    expect(subscribers).toBe(0)
  })
})

/**
 * A Durable Object evicted in the middle of a session: no event lost, no result duplicated, and a
 * subscriber resumes by Last-Event-ID. The reference is the same input sent to a session that was
 * never evicted; results are deterministic, so both must match exactly.
 * Covers: worker/durable-store.ts, worker/session-object.ts, src/session/session.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, uniqueId } from '../../support/api-suite.ts'
import { CONFIG, WEATHER_STREAMING_SSE, weatherCase } from '../../support/weather-fixtures.ts'
import { type Message, readSse, subscribe } from '../../support/sse-client.ts'
import { startWorker } from '../../support/runtimes.ts'

const CASE = weatherCase([
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { city: 'Paris' } },
])
const FRAMES = WEATHER_STREAMING_SSE.split(/(?<=\n\n)/).filter((f) => f.startsWith('data: '))
/** Evict between the second and third partial text chunk (frame 8 of 10). */
const CUT = 7

/** Wall-clock durations (invocation_duration_v1) differ between two sessions; nothing else may. */
const DURATION = /("metric_name":\s*"invocation_duration_v1"(?:(?!"metric_name")[\s\S])*?"score":\s*)[0-9.e-]+/g
const unmeasured = (text: string) => text.replace(DURATION, '$1"<measured>"')
/** The messages with the session id blanked, so two sessions' results compare equal. */
const normalise = (messages: Message[], id: string) =>
  JSON.parse(unmeasured(JSON.stringify(messages).replaceAll(id, '<session>'))) as Message[]

describe('Durable Object eviction mid-session', () => {
  const persist = mkdtempSync(join(tmpdir(), 'evalstream-evict-'))
  let worker: Awaited<ReturnType<typeof startWorker>>
  const api = apiClient(() => ({ baseUrl: worker.baseUrl, agentUrl: '', agentRequests: () => [] }))
  /** The object resets inside the request; the router still answers, so no connection is dropped. */
  const evict = async (id: string) => expect((await fetch(api.url(`/v1/sessions/${id}/__evict`), { method: 'POST' })).status).toBe(204)

  beforeAll(async () => {
    worker = await startWorker({}, persist)
  })
  afterAll(async () => {
    await worker?.stop()
    rmSync(persist, { recursive: true, force: true })
  })

  async function reference(): Promise<{ id: string; messages: Message[]; caseResult: unknown }> {
    const id = uniqueId('ref')
    await api.create({ session_id: id, eval_config: CONFIG, eval_case: CASE })
    await api.events(id, FRAMES.join(''), 'text/event-stream')
    const caseResult = await (await api.end(id)).json()
    return { id, messages: await readSse(await api.results(id)), caseResult }
  }

  it('loses no event and duplicates no result; the subscriber resumes by Last-Event-ID', async () => {
    const ref = await reference()
    expect(ref.messages.filter((m) => m.event === 'criterion.progress').length).toBeGreaterThan(0)

    const id = uniqueId('evict')
    await api.create({ session_id: id, eval_config: CONFIG, eval_case: CASE })
    const before = subscribe(await api.results(id))
    for (const frame of FRAMES.slice(0, CUT)) await api.events(id, frame, 'text/event-stream')
    // Results are appended while the upload is scored, so once it answered the log is complete.
    const seenBefore = ((await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any).last_seq as number
    await before.until((m) => m.length >= seenBefore)

    await evict(id)
    // The eviction ends the open stream; what it delivered so far is kept.
    const firstPart = await before.closed
    const lastSeen = Number(firstPart.at(-1)!.id)
    expect(lastSeen).toBe(seenBefore)
    // A real cut: some results came before the eviction, and some only after it.
    expect(lastSeen).toBeGreaterThan(1)
    expect(lastSeen).toBeLessThan(ref.messages.length - 1)

    const rest = await api.events(id, FRAMES.slice(CUT).join(''), 'text/event-stream')
    expect(await rest.json()).toEqual({ accepted: FRAMES.length - CUT, rejected: [] })
    const resumed = subscribe(await api.results(id, lastSeen))
    const caseResult = await (await api.end(id)).json()
    const secondPart = await resumed.closed

    const joined = [...firstPart, ...secondPart]
    expect(joined.map((m) => Number(m.id))).toEqual(ref.messages.map((_, i) => i + 1))
    expect(normalise(joined, id)).toEqual(normalise(ref.messages, ref.id))
    expect(unmeasured(JSON.stringify(caseResult).replaceAll(id, '<session>'))).toBe(
      unmeasured(JSON.stringify(ref.caseResult).replaceAll(ref.id, '<session>')),
    )
    // The invocation spans the eviction: timed from its first event, journaled before the eviction.
    const duration = (caseResult as any).overall_eval_metric_results.find((m: any) => m.metric_name === 'invocation_duration_v1')
    expect(duration).toMatchObject({ eval_status: 4, threshold: null })
    expect(duration.score).toBeGreaterThan(0)

    // Evicted again after the end: the log is served from SQLite, and /end answers the same result.
    await evict(id)
    expect(await readSse(await api.results(id))).toEqual(joined)
    expect(await (await api.end(id)).json()).toEqual(caseResult)
    expect(((await (await fetch(api.url(`/v1/sessions/${id}`))).json()) as any).last_seq).toBe(joined.length)
  })

  it('keeps sessions across a restart of the runtime', async () => {
    const id = uniqueId('restart')
    await api.create({ session_id: id, eval_config: CONFIG, eval_case: CASE })
    await api.events(id, FRAMES.slice(0, CUT).join(''), 'text/event-stream')
    const before = await readSse(await api.results(id), (_m, all) => all.length >= 1)
    await worker.stop()
    worker = await startWorker({}, persist)
    await api.events(id, FRAMES.slice(CUT).join(''), 'text/event-stream')
    await api.end(id)
    const all = await readSse(await api.results(id))
    expect(all[0]).toEqual(before[0])
    expect(all.map((m) => Number(m.id))).toEqual(all.map((_, i) => i + 1))
    expect(all.at(-1)!.event).toBe('case.result')
  })
})

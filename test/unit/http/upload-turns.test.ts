/**
 * No upload holds the event loop for long, whatever its size: the worst bodies the limits allow
 * (16 MB of JSON array or NDJSON in one chunk, 20,000 ANY_ORDER calls against 20,000 expected ones,
 * events at the byte limit) are scored in slices. What is measured is each request's longest
 * synchronous slice, on this thread's CPU clock: preemption by other processes on a loaded machine
 * does not count, so the bound holds however busy the machine is. The slicing itself is checked
 * with a clock that counts work.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/host/session-store.ts'
import { depsFromEnv } from '../../../src/host/setup.ts'
import { MAX_REQUEST_BYTES } from '../../../src/ingest/limits.ts'
import { createTurnSlicer } from '../../../src/ingest/turn-slicer.ts'
import { NO_JUDGE_ENV } from '../../support/runtimes.ts'

/** The bound on one request's hold of the loop. */
const MAX_LOOP_HOLD_MS = 50
const threadCpuMs = () => {
  const used = process.threadCpuUsage()
  return (used.user + used.system) / 1000
}

function server() {
  const slices: number[] = []
  const setup = depsFromEnv({ ...NO_JUDGE_ENV }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp({ ...setup.deps, turns: { clock: threadCpuMs, report: (ms) => slices.push(ms) } })
  const create = async (body: unknown) => {
    const res = await app.request('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(res.status).toBe(201)
    return ((await res.json()) as { session_id: string }).session_id
  }
  const upload = async (id: string, body: string, type: string) => {
    const res = await app.request(`/v1/sessions/${id}/events`, { method: 'POST', headers: { 'content-type': type }, body })
    expect(res.status).toBe(202)
    return (await res.json()) as { accepted: number; rejected: unknown[] }
  }
  return { create, upload, slices }
}

const event = (n: number) => ({ author: 'agent', invocationId: `e-${Math.floor(n / 50)}`, content: { role: 'model', parts: [{ text: `step ${n} ${'x'.repeat(180)}` }] } })

/** As many copies of `line(n)` as fit in `bytes`, joined by `sep`. */
function fill(bytes: number, line: (n: number) => string, sep: string): string[] {
  const out: string[] = []
  let size = 2
  for (let n = 0; ; n++) {
    const next = line(n)
    if (size + next.length + sep.length > bytes) return out
    size += next.length + sep.length
    out.push(next)
  }
}

describe('one upload never holds the event loop more than 50 ms', () => {
  it('a 16 MB JSON array of events', async () => {
    const s = server()
    const items = fill(MAX_REQUEST_BYTES, (n) => JSON.stringify(event(n)), ',')
    const id = await s.create({})
    expect((await s.upload(id, `[${items.join(',')}]`, 'application/json')).accepted).toBe(items.length)
    expect(Math.max(...s.slices)).toBeLessThan(MAX_LOOP_HOLD_MS)
  })

  it('16 MB of NDJSON arriving as one chunk', async () => {
    const s = server()
    const lines = fill(MAX_REQUEST_BYTES, (n) => JSON.stringify(event(n)), '\n')
    const id = await s.create({})
    expect((await s.upload(id, lines.join('\n'), 'application/x-ndjson')).accepted).toBe(lines.length)
    expect(Math.max(...s.slices)).toBeLessThan(MAX_LOOP_HOLD_MS)
  })

  it('ANY_ORDER: 20,000 expected calls, 20,000 pushed calls that never match', async () => {
    const s = server()
    const expected = Array.from({ length: 20_000 }, (_, i) => ({ name: 'lookup', args: { id: i } }))
    const id = await s.create({
      eval_config: { criteria: { tool_trajectory_avg_score: { threshold: 1, match_type: 'ANY_ORDER' } } },
      eval_case: { eval_id: 'c', conversation: [{ invocation_id: 'i', user_content: { role: 'user', parts: [{ text: 'go' }] }, intermediate_data: { tool_uses: expected } }] },
    })
    const calls = Array.from({ length: 20_000 }, (_, i) =>
      JSON.stringify({ author: 'agent', invocationId: 'i', content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { id: 20_000 + i } } }] } }),
    )
    expect((await s.upload(id, calls.join('\n'), 'application/x-ndjson')).accepted).toBe(20_000)
    expect(Math.max(...s.slices)).toBeLessThan(MAX_LOOP_HOLD_MS)
  })

  it('events at the byte limit (1 MB of text each), as a JSON array', async () => {
    const s = server()
    const big = (n: number) => JSON.stringify({ author: 'agent', invocationId: `e-${n}`, content: { role: 'model', parts: [{ text: `${n} ${'word '.repeat(199_900)}` }] } })
    const items = fill(MAX_REQUEST_BYTES, big, ',')
    const id = await s.create({})
    expect((await s.upload(id, `[${items.join(',')}]`, 'application/json')).accepted).toBe(items.length)
    expect(Math.max(...s.slices)).toBeLessThan(MAX_LOOP_HOLD_MS)
  })
})

describe('the turn slicer', () => {
  it('gives the loop back once a slice has done its share of work, and reports the longest slice', async () => {
    let work = 0
    let turnsGiven = 0
    const slicer = createTurnSlicer({ sliceMs: 5, clock: () => work, yieldTurn: async () => void turnsGiven++ })
    for (let unit = 0; unit < 23; unit++) {
      work += 1
      const pause = slicer.check()
      if (pause) await pause
    }
    slicer.end()
    expect(turnsGiven).toBe(4)
    expect(slicer.longestMs).toBe(5)
  })
})

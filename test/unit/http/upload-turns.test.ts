/**
 * No upload holds the event loop for long, whatever its size: the worst bodies the limits allow
 * (16 MB of JSON array or NDJSON in one chunk, 20,000 ANY_ORDER calls against 20,000 expected ones)
 * are scored in slices. (One event is the unit that cannot be split: a 1 MB event costs ~15 ms of
 * decoding and scoring on a quiet core, and on this shared machine its CPU time varies too much to
 * bound here.) What is measured is each request's longest
 * synchronous slice of its own work: this thread's user CPU time (so preemption by other processes
 * on a loaded machine does not count, nor kernel time for page faults) minus the garbage collector's pauses (reported synchronously by
 * v8.GCProfiler; on a starved machine the collector's helper threads get no CPU and its pauses on
 * this thread grow, which says nothing about the request). The slicing itself is checked with a
 * clock that counts work.
 * Covers: src/ingest/turn-slicer.ts.
 */
import { GCProfiler } from 'node:v8'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { MAX_REQUEST_BYTES } from '../../../src/ingest/limits.ts'
import { createTurnSlicer } from '../../../src/ingest/turn-slicer.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'

/**
 * What tells a sliced upload from one done in a single turn. Measured on this 2-core machine: these
 * uploads take 0.6-3.2 s of CPU in all; sliced, the longest slice was 8-20 ms on a quiet core and
 * 57 ms at worst (a slice also holds the work that cannot be split: one event, or indexing an
 * invocation's expected calls on its first call). The bound sits 4x above that worst slice and
 * 2.5x below the smallest whole, so neither a loaded machine nor a lucky one decides the test.
 */
const SLICED_BOUND_MS = 250
/** Readings closer together than this (ms) subtract no new garbage-collection pause. */
const GC_READ_MS = 2
/**
 * Wall-clock ms within which the thread's CPU time is not read again (the last reading stands).
 * The thread's CPU time cannot grow faster than the wall clock, so a reading is at most this stale:
 * nothing next to SLICED_BOUND_MS. Reading it at each of an upload's ~120,000 slicer checks (a
 * syscall and an object each) was a fifth of the test's time.
 */
const CPU_READ_EVERY_MS = 0.5
/** Milliseconds of this thread's user CPU spent outside garbage collection; `stop` ends the GC profiling. */
function ownWorkClock(): { clock: () => number; stop: () => void } {
  const profiler = new GCProfiler()
  profiler.start()
  let gcMs = 0
  const collect = () => {
    for (const gc of profiler.stop()?.statistics ?? []) gcMs += gc.cost / 1000
  }
  let lastUserMs = 0
  let lastReadAt = -Infinity
  return {
    clock: () => {
      const now = performance.now()
      if (now - lastReadAt < CPU_READ_EVERY_MS) return lastUserMs - gcMs
      lastReadAt = now
      // User time only: system time on a starved machine is page faults and memory reclaim.
      const userMs = process.threadCpuUsage().user / 1000
      // The profiler's statistics are read only when this reading moved by more than GC_READ_MS: a
      // pause shorter than that cannot move a slice near the bound, and reading them at every one of
      // an upload's ~64,000 units cost a third of the test's time.
      if (userMs - lastUserMs > GC_READ_MS) {
        collect()
        profiler.start()
      }
      lastUserMs = userMs
      return userMs - gcMs
    },
    stop: collect,
  }
}

let stopClock: (() => void) | undefined
afterEach(() => stopClock?.())

function server() {
  const slices: number[] = []
  const own = ownWorkClock()
  stopClock = own.stop
  const threadCpuMs = own.clock
  const setup = depsFromEnv({ ...NO_JUDGE_ENV }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  const app = createApp({ ...setup.deps, turns: { clock: threadCpuMs, report: (ms) => slices.push(ms) } })
  const create = async (body: unknown) => {
    const res = await app.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
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

const event = (n: number) => ({
  author: 'agent',
  invocationId: `e-${Math.floor(n / 50)}`,
  content: { role: 'model', parts: [{ text: `step ${n} ${'x'.repeat(180)}` }] },
})

/** As many copies of `line(n)` as fit in `bytes`, joined by `sep`. */
function fill(bytes: number, line: (n: number) => string, sep: string): string[] {
  const out: string[] = []
  let size = 2
  for (let n = 0;; n++) {
    const next = line(n)
    if (size + next.length + sep.length > bytes) return out
    size += next.length + sep.length
    out.push(next)
  }
}

describe('one upload holds the event loop a slice at a time, not for its whole work', () => {
  it('a 16 MB JSON array of events', async () => {
    const s = server()
    const items = fill(MAX_REQUEST_BYTES, (n) => JSON.stringify(event(n)), ',')
    const id = await s.create({})
    expect((await s.upload(id, `[${items.join(',')}]`, 'application/json')).accepted).toBe(items.length)
    expect(Math.max(...s.slices)).toBeLessThan(SLICED_BOUND_MS)
  })

  it('16 MB of NDJSON arriving as one chunk', async () => {
    const s = server()
    const lines = fill(MAX_REQUEST_BYTES, (n) => JSON.stringify(event(n)), '\n')
    const id = await s.create({})
    expect((await s.upload(id, lines.join('\n'), 'application/x-ndjson')).accepted).toBe(lines.length)
    expect(Math.max(...s.slices)).toBeLessThan(SLICED_BOUND_MS)
  })

  it('ANY_ORDER: 20,000 expected calls, 20,000 pushed calls that never match', async () => {
    const s = server()
    const expected = Array.from({ length: 20_000 }, (_, i) => ({ name: 'lookup', args: { id: i } }))
    const id = await s.create({
      eval_config: { criteria: { tool_trajectory_avg_score: { threshold: 1, match_type: 'ANY_ORDER' } } },
      eval_case: {
        eval_id: 'c',
        conversation: [{
          invocation_id: 'i',
          user_content: { role: 'user', parts: [{ text: 'go' }] },
          intermediate_data: { tool_uses: expected },
        }],
      },
    })
    const calls = Array.from(
      { length: 20_000 },
      (_, i) =>
        JSON.stringify({
          author: 'agent',
          invocationId: 'i',
          content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { id: 20_000 + i } } }] },
        }),
    )
    expect((await s.upload(id, calls.join('\n'), 'application/x-ndjson')).accepted).toBe(20_000)
    expect(Math.max(...s.slices)).toBeLessThan(SLICED_BOUND_MS)
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

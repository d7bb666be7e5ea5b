/**
 * Memory per open session on Node (in-memory store): N sessions, each created with a small eval
 * case and config and fed two events, through the app's fetch (no sockets). Measured as process
 * heap and RSS after a full GC, before and after, divided by N. Side by side with what a user
 * would otherwise run: a minimal Hono service that only keeps each session's spec and raw events
 * (to score them later in batch). Each variant runs in a fresh Node process.
 *
 *   npx node bench/sessions.bench.ts [sessions=10000]
 *
 * Lifecycle mode: N sessions created, fed two events and ended, then RSS after a full GC, with the
 * store unbounded (no cap, retention longer than the run), with the default cap
 * (EVALSTREAM_MAX_SESSIONS), and with a short retention (EVALSTREAM_ENDED_RETENTION_MS) swept.
 *
 *   npx node bench/sessions.bench.ts 50000 lifecycle
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Hono } from 'hono'

const N = Number(process.argv[2] ?? 10_000)
const variant = process.argv[3]

const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }
const SAMPLE = readFileSync(new URL('../test/fixtures/shared/samples/adk-js-weather.sse', import.meta.url), 'utf8')
// The first two frames of the weather run: a function call and its response.
const EVENTS: unknown[] = SAMPLE.split('\n\n')
  .filter((f) => f.startsWith('data: '))
  .slice(0, 2)
  .map((f) => JSON.parse(f.slice('data: '.length)))
const CASE = {
  eval_id: 'weather',
  conversation: [
    {
      invocation_id: 'expected-1',
      user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'In Paris it is sunny, 21C, and the time is 10:30.' }] },
      intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city: 'Paris' } }], intermediate_responses: [] },
    },
  ],
  session_input: { app_name: 'weather', user_id: 'u1', state: {} },
}

type Fetch = (request: Request) => Response | Promise<Response>

/** The alternative: keep the spec and the raw events, score nothing until later. */
function storeOnlyApp(): Fetch {
  const sessions = new Map<string, { spec: unknown; events: unknown[] }>()
  const app = new Hono()
  app.post('/v1/sessions', async (c) => {
    const spec = (await c.req.json()) as { session_id: string }
    sessions.set(spec.session_id, { spec, events: [] })
    return c.json({ session_id: spec.session_id }, 201)
  })
  app.post('/v1/sessions/:id/events', async (c) => {
    const session = sessions.get(c.req.param('id'))
    if (!session) return c.json({ error: 'not found' }, 404)
    const events = (await c.req.json()) as unknown[]
    session.events.push(...events)
    return c.json({ accepted: events.length, rejected: [] }, 202)
  })
  app.get('/v1/sessions/:id', (c) => c.json(sessions.get(c.req.param('id')) ?? null))
  return app.fetch
}

async function evalstreamApp(limits: Record<string, number> = {}): Promise<Fetch> {
  const { createApp } = await import('../src/http/app.ts')
  const { memorySessionStore } = await import('../src/session/store.ts')
  const { createSessionEngine } = await import('../src/engine/session-engine.ts')
  // The bench measures open sessions: none may be capped away.
  const store = memorySessionStore({ limits: { maxSessions: Number.MAX_SAFE_INTEGER, ...limits } })
  return createApp({ store, createEngine: (o) => createSessionEngine(o) }).fetch
}

const LIFECYCLE: Record<string, Record<string, number>> = {
  'ended-unbounded': { maxSessions: Number.MAX_SAFE_INTEGER, endedRetentionMs: 24 * 3600_000 },
  // DEFAULT_MAX_SESSIONS (the store's default; spelled out since src is imported only in the child).
  'ended-cap': { maxSessions: 10_000, endedRetentionMs: 24 * 3600_000 },
  'ended-retention': { maxSessions: Number.MAX_SAFE_INTEGER, endedRetentionMs: 200 },
}

/** Creates, feeds and ends N sessions; then waits one retention so the sweeper can run, and measures. */
async function measureLifecycle(kind: string): Promise<void> {
  const limits = LIFECYCLE[kind]!
  const warm = await evalstreamApp(limits)
  for (let i = 0; i < 200; i++) await open(warm, `warm-${i}`)
  const fetch = await evalstreamApp(limits)
  const before = settle()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    await open(fetch, `s-${i}`)
    const ended = await fetch(new Request(`http://local/v1/sessions/s-${i}/end`, { method: 'POST' }))
    if (ended.status !== 200) throw new Error(`end s-${i}: ${ended.status}`)
  }
  const ms = performance.now() - t0
  const peak = process.memoryUsage().rss
  // Longer than the short retention and its sweep interval (half of it).
  await new Promise((r) => setTimeout(r, 500))
  const after = settle()
  const status = async (i: number) => (await fetch(new Request(`http://local/v1/sessions/s-${i}`))).status
  const mib = (n: number) => (n / 2 ** 20).toFixed(0)
  console.log(
    `${kind.padEnd(16)} ${N} sessions created+ended in ${ms.toFixed(0)} ms | RSS ${mib(before.rss)} -> ${mib(after.rss)} MiB (peak ${
      mib(peak)
    }), heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB | first session: ${await status(0)}, last: ${await status(N - 1)}`,
  )
}

async function open(fetch: Fetch, id: string): Promise<void> {
  const created = await fetch(
    new Request('http://local/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: CASE }),
    }),
  )
  if (created.status !== 201) throw new Error(`create ${id}: ${created.status} ${await created.text()}`)
  const events = await fetch(
    new Request(`http://local/v1/sessions/${id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EVENTS),
    }),
  )
  const summary = (await events.json()) as { accepted: number }
  if (summary.accepted !== EVENTS.length) throw new Error(`events ${id}: ${JSON.stringify(summary)}`)
}

function settle(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc (the parent process does this)')
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage()
}

async function measure(kind: string): Promise<void> {
  const make = kind === 'evalstream' ? evalstreamApp : async () => storeOnlyApp()
  // Warm-up on a throwaway instance, so compiled code is not counted as session memory.
  const warm = await make()
  for (let i = 0; i < 200; i++) await open(warm, `warm-${i}`)
  const fetch = await make()
  const before = settle()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await open(fetch, `s-${i}`)
  const ms = performance.now() - t0
  const after = settle()
  const per = (k: 'heapUsed' | 'rss' | 'external') => ((after[k] - before[k]) / N / 1024).toFixed(1)
  console.log(
    `${kind.padEnd(10)} ${N} sessions in ${ms.toFixed(0)} ms | per session: heap ${per('heapUsed')} KiB, RSS ${per('rss')} KiB, external ${
      per('external')
    } KiB | heap ${(before.heapUsed / 2 ** 20).toFixed(0)} -> ${(after.heapUsed / 2 ** 20).toFixed(0)} MiB, RSS ${
      (before.rss / 2 ** 20).toFixed(0)
    } -> ${(after.rss / 2 ** 20).toFixed(0)} MiB`,
  )
  // The sessions are still there (and reachable until now).
  const last = await fetch(new Request(`http://local/v1/sessions/s-${N - 1}`))
  console.log(`  last session: ${last.status} ${(await last.text()).slice(0, 160)}…`)
}

if (variant && variant in LIFECYCLE) await measureLifecycle(variant)
else if (variant === 'lifecycle') {
  const { DEFAULT_MAX_SESSIONS } = await import('../src/session/store.ts')
  console.log(`Node ${process.version}; each session: eval case, 2 criteria, 2 events, ended; cap ${DEFAULT_MAX_SESSIONS}`)
  for (const kind of Object.keys(LIFECYCLE)) {
    const child = spawnSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, String(N), kind], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    process.stdout.write(child.stdout)
  }
} else if (variant) await measure(variant)
else {
  console.log(`Node ${process.version}; each session: eval case (1 invocation), 2 criteria, 2 events`)
  for (const kind of ['evalstream', 'store-only']) {
    const child = spawnSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, String(N), kind], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    process.stdout.write(child.stdout)
  }
}

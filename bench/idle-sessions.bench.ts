/**
 * Memory per open idle session over HTTP: the Node server (`npm start`'s flags, a fresh SQLite
 * file) takes N sessions, each created with the load bench's one-invocation case and followed by one
 * subscriber on GET /v1/sessions/{id}/results, and nothing more: no event, no end. Its resident set
 * (VmRSS) is read before the first session, at half of them and at all of them, each time after
 * SETTLE_S seconds idle (the lowest reading: V8 collects the creates' garbage and returns pages once
 * allocation stops). Two figures per server: the growth over N (what N idle sessions cost on
 * average, including what the process grows by once whatever the count), and the slope over the
 * second half (what one more idle session costs: connection, request, stream, session). Side by
 * side in the same run with the replay baseline (bench/load-replay.ts: the same HTTP surface, a
 * session a Map entry and its subscribers a list), what holding the same connections costs a relay;
 * evalstream's own part is the difference of the two slopes.
 * Rounds alternate the order of the two servers.
 *
 *   npx node bench/idle-sessions.bench.ts [--sessions 6000] [--rounds 2]
 */
import { parseArgs } from 'node:util'
import { CONFIG, loadCase } from './load-case.ts'
import { abortAll, call, openStream } from './load-http.ts'
import { rssMiB } from './proc-stats.ts'
import { type ServerChild, startServerChild } from './server-child.ts'

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '6000' }, rounds: { type: 'string', default: '2' } } })
const SESSIONS = Number(values.sessions)
if (!(Number.isInteger(SESSIONS) && SESSIONS >= 1)) throw new Error(`--sessions is a whole number >= 1, not '${values.sessions}'`)
/** Sessions opened at once: enough to be quick, few enough that no create waits on admission. */
const CONCURRENCY = 50
/** Seconds of idle after the last stream opened, read once a second. */
const SETTLE_S = 20
const createBody = JSON.stringify({ eval_config: CONFIG, eval_case: loadCase(1) })

const SERVERS: Record<string, { script: string; env?: Record<string, string> }> = {
  evalstream: { script: 'src/adapter/node/server.ts' },
  replay: { script: 'bench/load-replay.ts', env: { EVALSTREAM_REPLAY_INVOCATIONS: '1' } },
}

/** Creates session n and opens its stream; resolves once the stream's headers are in. */
async function openSession(server: ServerChild, n: number): Promise<void> {
  const id = `idle-${n}`
  const created = await call(server.base, 'POST', '/v1/sessions', { body: `{"session_id":"${id}",${createBody.slice(1)}` })
  if (created.status !== 201) throw new Error(`${created.status} on POST /v1/sessions: ${created.text.slice(0, 200)}`)
  const stream = await openStream(server.base, `/v1/sessions/${id}/results`)
  if (stream.status !== 200) throw new Error(`${stream.status} on GET /v1/sessions/${id}/results`)
  // Read (and drop) whatever comes, so the client never holds the stream back.
  void (async () => {
    try {
      for await (const _ of stream.body) { /* heartbeats only */ }
    } catch {
      // Cut at the end of the round.
    }
  })()
}

/** Opens sessions [from, to), CONCURRENCY at a time. */
async function openSessions(server: ServerChild, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n += CONCURRENCY) {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, to - n) }, (_, k) => openSession(server, n + k)))
  }
}

/**
 * The lowest resident set over SETTLE_S seconds idle: V8's memory reducer collects the garbage of
 * the creates and gives pages back a few seconds after allocation stops.
 */
async function settledRss(pid: number): Promise<number> {
  let low = rssMiB(pid)!.now
  for (let s = 0; s < SETTLE_S; s++) {
    await new Promise((r) => setTimeout(r, 1000))
    low = Math.min(low, rssMiB(pid)!.now)
  }
  return low
}

/**
 * Two readings, at half the sessions and at all of them, each settled. The first half also pays
 * what a process grows by once and then keeps whatever the count (SQLite's page caches, up to
 * ~2 MiB per connection, the writer thread's heap, code compiled on first use); the second half's
 * slope is what one more idle session costs.
 */
async function measure(name: string): Promise<{ line: string; slope: number }> {
  const server = await startServerChild(SERVERS[name]!)
  try {
    const before = rssMiB(server.pid)!.now
    const half = Math.floor(SESSIONS / 2)
    await openSessions(server, 0, half)
    const atHalf = await settledRss(server.pid)
    await openSessions(server, half, SESSIONS)
    const atAll = await settledRss(server.pid)
    const kib = (mib: number, sessions: number) => (mib * 1024) / sessions
    const slope = kib(atAll - atHalf, SESSIONS - half)
    return {
      slope,
      line: `${name}: RSS ${before.toFixed(1)} -> ${atHalf.toFixed(1)} MiB at ${half} -> ${atAll.toFixed(1)} MiB at ${SESSIONS} ` +
        `(${kib(atAll - before, SESSIONS).toFixed(1)} KiB per session on average, ${slope.toFixed(1)} KiB each past ${half})`,
    }
  } finally {
    abortAll()
    await server.stop()
  }
}

console.log(`idle sessions: ${SESSIONS}, each created and followed by one subscriber, nothing else`)
for (let r = 1; r <= Number(values.rounds); r++) {
  const order = r % 2 === 1 ? ['evalstream', 'replay'] : ['replay', 'evalstream']
  const results: Record<string, { line: string; slope: number }> = {}
  for (const name of order) results[name] = await measure(name)
  const own = results.evalstream!.slope - results.replay!.slope
  console.log(
    `round ${r}: ${order.map((n) => results[n]!.line).join('; ')}; evalstream's own part per session past half: ${own.toFixed(1)} KiB`,
  )
}

/**
 * Memory per open idle session over HTTP: the Node server (`npm start`'s flags, a fresh SQLite
 * file) takes N sessions, each created with the load bench's one-invocation case and followed by one
 * subscriber on GET /v1/sessions/{id}/results, and nothing more: no event, no end. Its resident set
 * (VmRSS) is read before the first session, once every stream is open, and then each second of
 * SETTLE_S seconds idle (the lowest reading is kept: V8 collects the creates' garbage and returns
 * pages once allocation stops); the difference over N is the cost of one idle session and its open
 * stream (connection, request, stream, session). Side by
 * side in the same run with the replay baseline (bench/load-replay.ts: the same HTTP surface, a
 * session a Map entry and its subscribers a list), what holding the same connections costs a relay.
 * Rounds alternate the order of the two servers.
 *
 *   npx node bench/idle-sessions.bench.ts [--sessions 2000] [--rounds 2]
 */
import { parseArgs } from 'node:util'
import { CONFIG, loadCase } from './load-case.ts'
import { abortAll, call, openStream } from './load-http.ts'
import { rssMiB } from './proc-stats.ts'
import { type ServerChild, startServerChild } from './server-child.ts'

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '2' } } })
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

async function measure(name: string): Promise<string> {
  const server = await startServerChild(SERVERS[name]!)
  try {
    const before = rssMiB(server.pid)!.now
    for (let n = 0; n < SESSIONS; n += CONCURRENCY) {
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, SESSIONS - n) }, (_, k) => openSession(server, n + k)))
    }
    const opened = rssMiB(server.pid)!.now
    // Then idle: V8's memory reducer collects the garbage of the creates and gives pages back a
    // few seconds after allocation stops; the lowest reading of SETTLE_S seconds is what stays.
    let after = opened
    for (let s = 0; s < SETTLE_S; s++) {
      await new Promise((r) => setTimeout(r, 1000))
      after = Math.min(after, rssMiB(server.pid)!.now)
    }
    const perSession = (mib: number) => (((mib - before) * 1024) / SESSIONS).toFixed(1)
    return `${name}: RSS ${before.toFixed(1)} -> ${opened.toFixed(1)} MiB when all were open (${perSession(opened)} KiB per session), ` +
      `${after.toFixed(1)} MiB after ${SETTLE_S} s idle (${perSession(after)} KiB per session)`
  } finally {
    abortAll()
    await server.stop()
  }
}

console.log(`idle sessions: ${SESSIONS}, each created and followed by one subscriber, nothing else`)
for (let r = 1; r <= Number(values.rounds); r++) {
  const order = r % 2 === 1 ? ['evalstream', 'replay'] : ['replay', 'evalstream']
  const lines: string[] = []
  for (const name of order) lines.push(await measure(name))
  console.log(`round ${r}: ${lines.join('; ')}`)
}

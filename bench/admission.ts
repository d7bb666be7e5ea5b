/**
 * `npx node bench/admission.ts [--sessions N] [--load-per-core K]`: does a healthy Node server on a
 * busy machine refuse sessions? The real server (`src/adapter/node/server.ts`, sessions in memory,
 * default admission settings) is started twice while K busy processes per core (default 2) hold
 * the machine: once with today's rule (refuse while the loop is late *and* busy with its own work)
 * and once with the loop's delay alone (`EVALSTREAM_ADMISSION_BUSY_PERCENT=1`, the rule before).
 * Against each, a client that waits for every answer:
 * - right after start-up, creates 12 sessions at once (the first requests compile the code);
 * - then creates N sessions one after the other, each given one weather invocation and ended.
 * It counts the 503s and prints the server's loop delay as the refusals quoted it. Loopback only,
 * bounded in count; it stops its processes when done. A benchmark, not a test: it prints, it does
 * not judge.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { CONFIG, MATCHING_CASE, WEATHER_EVENTS } from '../test/support/weather-fixtures.ts'

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '200' }, 'load-per-core': { type: 'string', default: '2' } },
})
const SESSIONS = Number(values.sessions)
const PER_CORE = Number(values['load-per-core'])

const SPIN = 'let x = 0; for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 31 + i) % 1000003 }'

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['src/adapter/node/server.ts'], {
    env: { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', EVALSTREAM_DB: ':memory:', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (b: Buffer) => {
      out += b
      const m = /listening on (http:\/\/[^\s]+)/.exec(out)
      if (m) resolve({ child, url: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)))
  })
}

type Tally = { created: number; refused: number; delays: number[] }

async function create(url: string, id: string, tally: Tally): Promise<boolean> {
  const res = await fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: id, eval_config: CONFIG, eval_case: MATCHING_CASE }),
  })
  const body = await res.text()
  if (res.status === 503) {
    tally.refused++
    const ms = /event loop is (\d+) ms late/.exec(body)?.[1]
    if (ms) tally.delays.push(Number(ms))
    return false
  }
  tally.created++
  return true
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  const { child, url } = await startServer(env)
  try {
    const burst: Tally = { created: 0, refused: 0, delays: [] }
    await Promise.all(Array.from({ length: 12 }, (_, i) => create(url, `burst-${i}`, burst)))
    const steady: Tally = { created: 0, refused: 0, delays: [] }
    const started = performance.now()
    for (let i = 0; i < SESSIONS; i++) {
      const id = `s-${i}`
      if (!(await create(url, id, steady))) continue
      const up = await fetch(`${url}/v1/sessions/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(WEATHER_EVENTS),
      })
      await up.body?.cancel()
      await (await fetch(`${url}/v1/sessions/${id}/end`, { method: 'POST' })).body?.cancel()
    }
    const seconds = (performance.now() - started) / 1000
    const worst = (t: Tally) => (t.delays.length ? `${Math.max(...t.delays)} ms` : '-')
    console.log(
      `${label.padEnd(34)} start-up burst: ${burst.refused}/12 refused (worst quoted delay ${worst(burst)}); ` +
        `steady: ${steady.refused}/${SESSIONS} refused (worst ${worst(steady)}), ${(SESSIONS / seconds).toFixed(1)} sessions/s`,
    )
  } finally {
    child.kill('SIGKILL')
  }
}

const spinners = Array.from({ length: PER_CORE * availableParallelism() }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }))
try {
  console.log(`admission on a busy machine: ${spinners.length} busy processes (${PER_CORE} per core), ${SESSIONS} sessions`)
  await run('late and busy (default)', {})
  await run('late alone (BUSY_PERCENT=1)', { EVALSTREAM_ADMISSION_BUSY_PERCENT: '1' })
  await run('late and busy (default), again', {})
  await run('late alone (BUSY_PERCENT=1), again', { EVALSTREAM_ADMISSION_BUSY_PERCENT: '1' })
} finally {
  for (const s of spinners) s.kill('SIGKILL')
}

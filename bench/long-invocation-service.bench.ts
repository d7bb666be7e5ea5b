/**
 * One long invocation through the whole service, in process: Hono app, the SQLite session store on
 * a temp file (grouped commits, as Deno runs it; `npm start` on Node writes behind), the results
 * index on the same file and watching the result feed, /metrics counters, and a subscriber
 * streaming the session's results. One invocation of N events (tool call, tool response, final
 * text, repeated: every final text completes the invocation and the next event reopens it, so its
 * results are revised each time) is posted as NDJSON in uploads of 1,000 events. Reports the time
 * per pushed event; flat means linear. Each size runs in its own child process, this tree and,
 * with --root, another checkout side by side (A/B), interleaved.
 *
 * Exits 1 when an upload is refused, a stream does not end with case.result, or the subscriber
 * received other than what the session logged.
 *
 *   npx node bench/long-invocation-service.bench.ts [--sizes 1000,5000,20000] [--root DIR] [--budget 120]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const UPLOAD_EVENTS = 1_000
const EVAL_CASE = {
  eval_id: 'long',
  conversation: [
    {
      invocation_id: 'expected',
      user_content: { role: 'user', parts: [{ text: 'q' }] },
      final_response: { role: 'model', parts: [{ text: 'answer' }] },
      intermediate_data: { tool_uses: [{ name: 'lookup', args: { n: 1 } }] },
    },
  ],
}

function event(i: number): object {
  const base = { invocation_id: 'one', author: 'agent', id: `ev-${i}` }
  if (i === 0) return { ...base, author: 'user', content: { role: 'user', parts: [{ text: 'q' }] } }
  if (i % 3 === 1) return { ...base, content: { role: 'model', parts: [{ function_call: { name: 'lookup', args: { n: i } } }] } }
  if (i % 3 === 2) return { ...base, content: { role: 'user', parts: [{ function_response: { name: 'lookup', response: { n: i } } }] } }
  return { ...base, content: { role: 'model', parts: [{ text: `answer number ${i}` }] } }
}

type Measurement = { pushMs: number; results: number; uploads: number }

async function measure(root: string, events: number): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-long-service-'))
  // The parent stops a run past its budget with SIGTERM: the temp dir goes with it.
  process.once('SIGTERM', () => {
    rmSync(dir, { recursive: true, force: true })
    process.exit(143)
  })
  try {
    const { DatabaseSync } = await import('node:sqlite')
    const { sqlFromDatabaseSync } = await import(join(root, 'src/session/sql.ts'))
    const { sqliteSessionStore } = await import(join(root, 'src/session/store.ts'))
    const { depsFromEnv } = await import(join(root, 'src/config/setup.ts'))
    const { resultsIndexFromEnv } = await import(join(root, 'src/config/results-index.ts'))
    const { createApp } = await import(join(root, 'src/http/app.ts'))
    const db = new DatabaseSync(join(dir, 'evalstream.db'))
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL')
    const sql = sqlFromDatabaseSync(db, { groupCommit: true })
    const env = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' }
    const setup = depsFromEnv(env, { store: (limits: unknown, feed: unknown) => sqliteSessionStore(sql, { limits, feed }), metrics: true })
    if (!setup.ok) throw new Error(setup.error)
    const index = resultsIndexFromEnv(env, sql, setup.deps.feed)
    if (!index.ok) throw new Error(index.error)
    const app = createApp({ ...setup.deps, resultsIndex: index.value.index })
    const call = (path: string, init?: RequestInit) => app.fetch(new Request(`http://bench${path}`, init)) as Promise<Response>
    const created = await call('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id: 'long',
        eval_config: { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } },
        eval_case: EVAL_CASE,
      }),
    })
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`)
    const subscriber = await call('/v1/sessions/long/results')
    let frames = 0
    let ended = false
    const reading = (async () => {
      const decoder = new TextDecoder()
      let text = ''
      for await (const chunk of subscriber.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true })
        let cut: number
        while ((cut = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, cut)
          text = text.slice(cut + 2)
          if (/^id: /m.test(frame)) frames += 1
          if (/^event: case\.result$/m.test(frame)) ended = true
        }
      }
    })()
    const bodies: string[] = []
    for (let start = 0; start < events; start += UPLOAD_EVENTS) {
      const lines: string[] = []
      for (let i = start; i < Math.min(events, start + UPLOAD_EVENTS); i++) lines.push(JSON.stringify(event(i)))
      bodies.push(lines.join('\n') + '\n')
    }
    globalThis.gc?.()
    const t0 = performance.now()
    for (const body of bodies) {
      const res = await call('/v1/sessions/long/events', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body })
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`)
      await res.arrayBuffer()
    }
    const pushMs = performance.now() - t0
    const end = await call('/v1/sessions/long/end', { method: 'POST' })
    if (end.status !== 200) throw new Error(`end answered ${end.status}`)
    await end.arrayBuffer()
    await reading
    const { last_seq } = (await (await call('/v1/sessions/long')).json()) as { last_seq: number }
    if (!ended || frames !== last_seq) throw new Error(`the stream carried ${frames} of ${last_seq} results (case.result: ${ended})`)
    setup.deps.store.close?.()
    return { pushMs, results: last_seq, uploads: bodies.length }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function child(root: string, events: number, budgetS: number): Measurement | string {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), '--measure', root, String(events)],
    { encoding: 'utf8', timeout: budgetS * 1000, maxBuffer: 1 << 20 },
  )
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return `over ${budgetS} s`
  if (run.status !== 0) {
    console.error(`measurement failed (${root}, ${events}): ${run.stderr.slice(-2000)}`)
    process.exit(1)
  }
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Measurement
}

if (process.argv[2] === '--measure') {
  console.log(JSON.stringify(await measure(process.argv[3]!, Number(process.argv[4]))))
} else {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,5000,20000' },
      root: { type: 'string' },
      budget: { type: 'string', default: '120' },
    },
  })
  const sizes = values.sizes.split(',').map(Number)
  const roots = [resolve('.'), ...(values.root ? [resolve(values.root)] : [])]
  console.log(
    `node ${process.version}; full service in process (SQLite file, index, metrics, one subscriber); tool call, response, text repeated`,
  )
  console.log(`| events | ${roots.map((r) => `${r}: per event (results)`).join(' | ')} |`)
  console.log(`|---|${roots.map(() => '---|').join('')}`)
  const over = new Set<string>()
  for (const events of sizes) {
    const cells = roots.map((root) => {
      if (over.has(root)) return 'skipped'
      const m = child(root, events, Number(values.budget))
      if (typeof m === 'string') {
        over.add(root)
        return m
      }
      return `${((m.pushMs * 1000) / events).toFixed(1)} µs (${m.results})`
    })
    console.log(`| ${events.toLocaleString('en')} | ${cells.join(' | ')} |`)
  }
}

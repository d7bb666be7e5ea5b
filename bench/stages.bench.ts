/**
 * Where the time of one evalstream upload goes, stage by stage, without HTTP: the same 10,000-event
 * body as bench/http.bench.ts through the ingest decoder, the engine's push and end, and the result
 * serialisation the SSE writer does.
 *
 *   npx node bench/stages.bench.ts [invocations=2000] [rounds=3]
 *
 * EVALSTREAM_ENGINE=/abs/path/engine.ts swaps in another module exporting createSessionEngine.
 */
import { readFileSync } from 'node:fs'
import type { DecodedEvent } from '../src/ingest/index.ts'
import { decodeAll } from '../src/ingest/index.ts'

const INVOCATIONS = Number(process.argv[2] ?? 2000)
const ROUNDS = Number(process.argv[3] ?? 3)
const SAMPLE = readFileSync(new URL('../test/fixtures/shared/samples/adk-js-weather.sse', import.meta.url), 'utf8')
const FRAMES = SAMPLE.split(/(?<=\n\n)/).filter((f) => f.startsWith('data: '))
const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }

function body(invocations: number): string {
  const id = /e-a899f5c0-0a05-4e99-8149-ceda68159f27/g
  const parts: string[] = []
  for (let i = 0; i < invocations; i++) for (const f of FRAMES) parts.push(f.replace(id, `e-${i}`))
  return parts.join('')
}

const { createSessionEngine } = (await import(
  process.env.EVALSTREAM_ENGINE ?? '../src/engine/session-engine.ts'
)) as typeof import('../src/engine/session-engine.ts')
const text = body(INVOCATIONS)
const time = async <T>(f: () => T | Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now()
  const r = await f()
  return [r, performance.now() - t0]
}

for (let r = 0; r < ROUNDS; r++) {
  const [decoded, decodeMs] = await time(() => decodeAll('sse', text))
  const [, parseMs] = await time(() => {
    for (const f of text.split('\n\n')) if (f.startsWith('data: ')) JSON.parse(f.slice(6))
  })
  const results: unknown[] = []
  const created = createSessionEngine({ spec: { session_id: 's', eval_config: CONFIG }, emit: (b) => void results.push(b) })
  if (!created.ok) throw new Error(created.problem.detail)
  const engine = created.engine
  const [, pushMs] = await time(() => {
    for (const e of decoded.events as DecodedEvent[]) engine.push(e)
  })
  const [, endMs] = await time(() => engine.end())
  const [, stringifyMs] = await time(() => {
    for (const b of results) JSON.stringify((b as { data: unknown }).data)
  })
  const n = decoded.events.length
  const us = (ms: number) => `${((ms * 1000) / n).toFixed(1)} µs/event`
  console.log(
    `round ${r + 1}: ${n} events, ${results.length} results | decode ${decodeMs.toFixed(0)} ms (${us(decodeMs)}; JSON.parse alone ${
      us(parseMs)
    }) | push ${pushMs.toFixed(0)} ms (${us(pushMs)}) | end ${endMs.toFixed(0)} ms | stringify results ${stringifyMs.toFixed(0)} ms`,
  )
}

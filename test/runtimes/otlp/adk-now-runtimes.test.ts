/**
 * The trace shapes ADK emits today (test/fixtures/otlp/adk-now: ADK Go 1.44's semconv spans with
 * content on the spans, and ADK Python 2.5.0 with content off and `<elided>` log bodies) posted to
 * the receiver of a Deno server process and of the Worker in workerd: each conversation's
 * invocations score as the same requests do on Node (in process), the metrics that need content
 * NOT_EVALUATED with the same reason on every runtime.
 * Covers: src/otlp/span-readers.ts, src/otlp/content-reasons.ts, src/adapter/deno/server.ts, worker/otlp-shard.ts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS, tracesToConversations } from '../../../src/otlp/index.ts'
import { type Running, startDeno, startWorker } from '../../support/runtimes.ts'
import { BOUNDS, FIXTURE_DIR } from '../../unit/otlp/support/fixtures.ts'
import { fixtureRequests, receiverApp } from '../../unit/otlp/support/receiver-app.ts'

const DIR = join(FIXTURE_DIR, 'adk-now')
const read = (name: string) => readFileSync(join(DIR, name), 'utf8')
const MATH = JSON.parse(read('math.evalset.json')).eval_cases[0]
const OTLP_CONFIG = JSON.stringify({ apps: { math_agent: { eval_config: JSON.parse(read('math.test_config.json')), eval_case: MATH } } })
/** Each shape, and the status of response_match_score it must get (content captured or not). */
const SHAPES = [['go-1.44-span-only.jsonl', 'PASSED'], ['py-2.5.0-content-off-elided.jsonl', 'NOT_EVALUATED']] as const

type Json = Record<string, any>
/** What each invocation scored: per metric its score, status, details and, when not evaluated, why. */
function verdicts(snapshot: Json) {
  return (snapshot.invocations as Json[]).map((i) => ({ completed: i.completed, results: i.results }))
}

const sessionOf = (text: string) => {
  const decoded = decodeOtlpFile(text, DEFAULT_OTLP_LIMITS)
  return `otlp-${tracesToConversations(decoded.spans, decoded.logs, BOUNDS)[0]!.conversationId}`
}

async function postAll(post: (path: string, body: string) => Response | Promise<Response>, text: string): Promise<void> {
  for (const line of fixtureRequests(text)) {
    const res = await post(line.startsWith('{"resourceLogs"') ? '/v1/logs' : '/v1/traces', line)
    expect([res.status, await res.text()]).toEqual([200, '{}'])
  }
}

/** The same requests on Node, in process: the reference every runtime must match. */
async function onNode(text: string): Promise<Json> {
  const r = receiverApp({ env: { EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG } })
  await postAll((path, body) => r.post(path, body), text)
  return verdicts((await (await r.app.request(`/v1/sessions/${sessionOf(text)}`)).json()) as Json)
}

describe.each(['deno', 'workerd'] as const)('the shapes ADK emits today, posted to %s', (runtime) => {
  let server: Running
  beforeAll(async () => {
    server = runtime === 'deno'
      ? await startDeno({ EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG })
      : await startWorker({ EVALSTREAM_OTLP_CONFIG: OTLP_CONFIG })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it.each(SHAPES)('%s scores as on Node', async (file, responseMatch) => {
    const text = read(file)
    const post = (path: string, body: string) =>
      fetch(`${server.baseUrl}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    await postAll(post, text)
    const snapshot = (await (await fetch(`${server.baseUrl}/v1/sessions/${sessionOf(text)}`)).json()) as Json
    const expected = await onNode(text)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected[0].results.response_match_score.status).toBe(responseMatch)
    expect(verdicts(snapshot)).toEqual(expected)
  })
})

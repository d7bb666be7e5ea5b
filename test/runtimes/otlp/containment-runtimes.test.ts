/**
 * The OTLP containment rules hold on every runtime, since the code is shared: a Node and a Deno
 * server process and the Worker on workerd each refuse a client's trace mark (rejected with its
 * path) and a client-made `otlp-` session (400), answer a request past the per-request session cap
 * with a partial success naming it, and refuse a gzip body that inflates past the tenant's bytes
 * (413: alone past its share), and decode a 400 KB request in pieces and slices. Loopback only;
 * each server is stopped and its folder removed.
 * Covers: src/http/otlp-routes.ts, src/http/otlp-intake.ts, src/otlp/session-id.ts, src/session/feed.ts, worker/otlp-shard.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnServer } from '../../support/server-process.ts'
import { startWorker } from '../../support/runtimes.ts'
import { fixtureText } from '../../unit/otlp/support/fixtures.ts'
import { llmSpanFlood } from '../../support/llm-span-flood.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-otlp-containment-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ENV = { EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST: '1', EVALSTREAM_OTLP_MAX_TENANT_BYTES: String(512 * 1024) }
const LINES = fixtureText('adk-js.jsonl').split('\n').filter((l) => l.trim() !== '')
const JSON_TYPE = { 'content-type': 'application/json' }

/** Both turns of conversations 1 and 2 (fresh trace ids each) in one request. */
function twoConversations(): string {
  const spans = [1, 2].flatMap((n) =>
    LINES.flatMap((l) => {
      const body = JSON.parse(l.replaceAll('"traceId":"00000001', `"traceId":"0000000${n}`).replaceAll('session-js', `conv-${n}`))
      return body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))
    })
  )
  return JSON.stringify({ resourceSpans: [{ resource: JSON.parse(LINES[0]!).resourceSpans[0].resource, scopeSpans: [{ spans }] }] })
}

/**
 * 800 root call_llm spans with a user message and no conversation id (400 KB, under the tenant
 * bytes set here): each trace completes on arrival.
 */
const floodOfRoots = () => llmSpanFlood(800)

async function checkContainment(baseUrl: string): Promise<void> {
  const post = (path: string, body: BodyInit, headers: Record<string, string> = JSON_TYPE) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', body, headers })

  const reserved = await post('/v1/sessions', JSON.stringify({ session_id: 'otlp-mine' }))
  expect(reserved.status).toBe(400)
  expect(((await reserved.json()) as { detail: string }).detail).toContain("ids starting with 'otlp-'")

  expect((await post('/v1/sessions', JSON.stringify({ session_id: 'pushed' }))).status).toBe(201)
  const forged = { invocation_id: 'e-1', author: 'agent', evalstream_trace: { trace_id: 'ab'.repeat(16), start_ms: 0, tool_span_ids: [] } }
  const pushed = await post('/v1/sessions/pushed/events', JSON.stringify(forged), { 'content-type': 'application/x-ndjson' })
  expect(pushed.status).toBe(202)
  expect(((await pushed.json()) as { rejected: Array<{ path?: string }> }).rejected.map((r) => r.path)).toEqual(['$.evalstream_trace'])

  const capped = await post('/v1/traces', twoConversations())
  expect(capped.status).toBe(200)
  const answer = (await capped.json()) as { partialSuccess?: { errorMessage: string } }
  expect(answer.partialSuccess?.errorMessage).toContain('EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST')
  expect((await fetch(`${baseUrl}/v1/sessions/otlp-conv-1`)).status).toBe(200)

  // A large body is decoded a piece at a time, in slices, on every runtime (json-pieces.ts), with the same answer.
  const flood = await post('/v1/traces', floodOfRoots())
  expect(flood.status).toBe(200)
  expect(((await flood.json()) as { partialSuccess?: { errorMessage: string } }).partialSuccess?.errorMessage).toContain(
    'EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST',
  )

  const bomb = await post('/v1/traces', gzipSync(Buffer.alloc(4 * 1024 * 1024, ' ')), { ...JSON_TYPE, 'content-encoding': 'gzip' })
  // Alone past the tenant's share of bytes in flight: 413 (a retry cannot help).
  expect(bomb.status).toBe(413)
  expect(((await bomb.json()) as { message: string }).message).toContain('holds more than EVALSTREAM_OTLP_MAX_TENANT_BYTES')
}

describe.each(['node', 'deno'] as const)('OTLP containment in a %s process', (runtime) => {
  it('holds the same rules', async () => {
    const env = { ...ENV, EVALSTREAM_DB: join(dir, `${runtime}.db`) }
    const server = await spawnServer(runtime, { env, ...(runtime === 'deno' ? { denoWrite: dir } : {}) })
    try {
      await checkContainment(server.baseUrl)
    } finally {
      await server.stop()
    }
  }, 120_000)
})

describe('OTLP containment on workerd', () => {
  it('holds the same rules', async () => {
    const worker = await startWorker(ENV)
    try {
      await checkContainment(worker.baseUrl)
    } finally {
      await worker.stop()
    }
  }, 120_000)
})

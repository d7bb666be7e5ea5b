/**
 * A refused body is read and dropped (within REFUSED_BODY_DRAIN_BYTES and _MS) before the answer,
 * so a client still sending reads the 4xx instead of a reset connection; a body declaring more than
 * that is cancelled unread. Covers: src/http/read-body.ts
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { dropRefusedBody, REFUSED_BODY_DRAIN_BYTES } from '../../../src/http/read-body.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'
import { receiverApp } from '../otlp/support/receiver-app.ts'

const CHUNK = 1000

/** A body of `total` bytes served a chunk per pull, which tells how far it was read. */
function countedBody(total: number) {
  const seen = { pulled: 0, finished: false, cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= total) {
        seen.finished = true
        controller.close()
        return
      }
      const size = Math.min(CHUNK, total - seen.pulled)
      seen.pulled += size
      controller.enqueue(new Uint8Array(size).fill(0x20))
    },
    cancel() {
      seen.cancelled = true
    },
  }, { highWaterMark: 0 })
  return { stream, seen }
}

function appWith(maxRequestBytes: number) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, EVALSTREAM_MAX_REQUEST_BYTES: String(maxRequestBytes) }, { store: memorySessionStore() })
  if (!setup.ok) throw new Error(setup.error)
  return createApp(setup.deps)
}

const post = (
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  path: string,
  body: ReadableStream,
  headers: Record<string, string> = {},
) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, duplex: 'half' } as RequestInit)

describe('refused bodies are read to their end before the answer', () => {
  it('the create, /run_sse-free routes and the events route: 413 and 415 after the whole body is read', async () => {
    const app = appWith(2000)
    expect(
      (await app.request('/v1/sessions', { method: 'POST', body: '{"session_id":"s"}', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(201)
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/v1/sessions', {}, 413],
      ['/v1/sessions', { 'content-length': '5000' }, 413],
      ['/v1/sessions', { 'content-type': 'text/plain' }, 415],
      ['/v1/sessions/s/events', {}, 413],
      ['/v1/sessions/s/events', { 'content-length': '5000' }, 413],
      ['/v1/sessions/s/events', { 'content-type': 'text/plain' }, 415],
    ]
    for (const [path, headers, status] of cases) {
      const { stream, seen } = countedBody(5000)
      const res = await post(app, path, stream, headers)
      expect([path, headers, res.status, seen.pulled, seen.finished]).toEqual([path, headers, status, 5000, true])
    }
  })

  it('OTLP: a trace body over its limit, and a metrics body, are read to their end', async () => {
    const r = receiverApp({ env: { EVALSTREAM_OTLP_MAX_REQUEST_BYTES: '2000' } })
    for (const [path, status] of [['/v1/traces', 413], ['/v1/metrics', 200]] as const) {
      const { stream, seen } = countedBody(5000)
      const res = await post(r.app, path, stream)
      expect([path, res.status, seen.pulled, seen.finished]).toEqual([path, status, 5000, true])
    }
  })

  it('a body that declares more than REFUSED_BODY_DRAIN_BYTES is cancelled, not read', async () => {
    const app = appWith(2000)
    const { stream, seen } = countedBody(10 * REFUSED_BODY_DRAIN_BYTES)
    const res = await post(app, '/v1/sessions', stream, { 'content-length': String(10 * REFUSED_BODY_DRAIN_BYTES) })
    expect(res.status).toBe(413)
    expect(seen.pulled).toBeLessThanOrEqual(CHUNK)
    expect(seen.cancelled).toBe(true)
  })

  it('an undeclared endless body is read past the limit by at most REFUSED_BODY_DRAIN_BYTES, then cancelled', async () => {
    const app = appWith(2000)
    const { stream, seen } = countedBody(Number.MAX_SAFE_INTEGER)
    expect((await post(app, '/v1/sessions', stream)).status).toBe(413)
    expect(seen.pulled).toBeGreaterThan(REFUSED_BODY_DRAIN_BYTES)
    expect(seen.pulled).toBeLessThanOrEqual(2000 + CHUNK + REFUSED_BODY_DRAIN_BYTES + CHUNK)
    expect(seen.cancelled).toBe(true)
  })
})

describe('dropRefusedBody', () => {
  it('a stalled body is given up when the drain time is over, and cancelled', async () => {
    let cancelled = false
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}), cancel: () => void (cancelled = true) })
    await dropRefusedBody(stalled, { expired: Promise.resolve() })
    expect(cancelled).toBe(true)
  })

  it('a body someone else is reading is left to them, and a broken body ends the drop quietly', async () => {
    const { stream, seen } = countedBody(5000)
    const reader = stream.getReader()
    await dropRefusedBody(stream)
    expect(seen.cancelled).toBe(false)
    reader.releaseLock()
    const broken = new ReadableStream<Uint8Array>({ pull: (c) => c.error(new Error('reset by peer')) })
    await expect(dropRefusedBody(broken)).resolves.toBeUndefined()
  })
})

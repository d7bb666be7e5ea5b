/**
 * Covers: worker/otlp-shard.ts (the router's side). Decoded spans are split by trace id: each shard
 * gets exactly the spans of its traces, with the tenant, all shards at once; their outcomes add up.
 * A shard that fails makes the request a 503 (which exporters retry) after the others took theirs.
 * The namespace is an in-process stand-in recording what each shard object was sent.
 */
import { describe, expect, it } from 'vitest'
import { OtlpRequestError, type OtlpSpan } from '../../../src/otlp/index.ts'
import { otlpShardName, shardedOtlpMonitor } from '../../../worker/otlp-shard.ts'
import { shardOf } from '../../../worker/shards.ts'

const SHARDS = 4
const span = (traceId: string, spanId: string): OtlpSpan => ({
  traceId,
  spanId,
  parentSpanId: '',
  name: 'call_llm',
  startMs: 1,
  endMs: 2,
  statusCode: 0,
  statusMessage: '',
  attributes: {},
  resource: {},
  scope: '',
})
const TRACES = Array.from({ length: 12 }, (_, i) => (i + 1).toString(16).padStart(32, '0'))
const SPANS = TRACES.flatMap((t, i) => [span(t, `${i}`.padStart(16, 'a')), span(t, `${i}`.padStart(16, 'b'))])

function namespace(failing?: string) {
  const sent = new Map<string, { tenant: string | null; spans: OtlpSpan[] }>()
  return {
    sent,
    idFromName: (name: string) => name,
    get: (id: unknown) => ({
      fetch: async (request: Request) => {
        const body = (await request.json()) as { tenant: string | null; spans: OtlpSpan[] }
        sent.set(String(id), body)
        if (String(id) === failing) return new Response('overloaded', { status: 500 })
        return Response.json({ traces: new Set(body.spans.map((s) => s.traceId)).size, invocations: 1, dropped: [] })
      },
    }),
  }
}

describe('the router splitting OTLP spans over shards', () => {
  it("sends each shard exactly its traces' spans, with the tenant, and adds up their outcomes", async () => {
    const ns = namespace()
    const outcome = await shardedOtlpMonitor(ns, SHARDS).addSpans('acme', SPANS)
    const used = new Set(TRACES.map((t) => shardOf(t, SHARDS)))
    expect(used.size).toBeGreaterThan(1)
    expect([...ns.sent.keys()].sort()).toEqual([...used].map((k) => otlpShardName('acme', k)).sort())
    for (const [name, body] of ns.sent) {
      expect(body.tenant).toBe('acme')
      const k = [...used].find((i) => otlpShardName('acme', i) === name)!
      expect(body.spans).toEqual(SPANS.filter((s) => shardOf(s.traceId, SHARDS) === k))
    }
    expect(outcome).toEqual({ traces: TRACES.length, invocations: used.size, dropped: [], refused: [] })
  })

  it('a shard that fails makes the request a 503 to retry, after the others took their parts', async () => {
    const failing = otlpShardName(undefined, shardOf(TRACES[0]!, SHARDS))
    const ns = namespace(failing)
    const error = await shardedOtlpMonitor(ns, SHARDS).addSpans(undefined, SPANS).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OtlpRequestError)
    expect((error as OtlpRequestError).status).toBe(503)
    expect((error as Error).message).toMatch(/^retry: 1 of \d+ shard\(s\) failed \(OTLP shard \d+ answered 500\)$/)
    // Every shard was sent its part, the failing one too: nothing waits on it.
    expect(ns.sent.size).toBe(new Set(TRACES.map((t) => shardOf(t, SHARDS))).size)
    expect(ns.sent.get(failing)?.tenant).toBeNull()
  })
})

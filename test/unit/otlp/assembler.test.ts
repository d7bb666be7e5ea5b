import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createSpanAssembler,
  type OtlpLogRecord,
  type OtlpSpan,
  toAdkInvocation,
  tracesToConversations,
  type TraceUpdate,
} from '../../../src/otlp/index.ts'
import { BOUNDS, loadFixture } from './support/fixtures.ts'

const FILES = [
  'adk-python-v1.jsonl',
  'adk-python-v2.jsonl',
  'adk-js.jsonl',
  'adk-go.jsonl',
  'genai-semconv.jsonl',
  'adk-python-v1-content-off.jsonl',
]

function clock() {
  const c = { ms: 0, now: () => c.ms }
  return c
}

/** The invocations a batch order ends with: the last update per trace, as ADK invocations. */
function finalInvocations(updates: readonly TraceUpdate[]) {
  const last = new Map<string, TraceUpdate['trace']>()
  for (const u of updates) last.set(u.trace.traceId, u.trace)
  return [...last.values()].sort((a, b) => a.startMs - b.startMs).map((t) => ({
    traceId: t.traceId,
    conversation: t.conversationId,
    invocation: toAdkInvocation(t),
    missing: t.missing,
    duration: t.durationMs,
    calls: t.toolCalls,
  }))
}

describe('span assembler', () => {
  it('reports a tool call the moment its span arrives, before the model span and the root', () => {
    const { spans } = loadFixture('adk-python-v1.jsonl')
    const c = clock()
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: c.now })
    const tool = spans.find((s) => s.name === 'execute_tool get_weather')!
    const [first] = assembler.addSpans([tool])
    expect(first!.newToolCalls.map((t) => [t.call.name, t.call.args, t.spanId])).toEqual([['get_weather', { city: 'Paris' }, tool.spanId]])
    expect(first!.completed).toBeUndefined()
    // The model span that asked for it arrives: the same call (same id), not reported again.
    const rest = spans.filter((s) => s.traceId === tool.traceId && s !== tool && s.parentSpanId !== '')
    const [second] = assembler.addSpans(rest)
    expect(second!.newToolCalls).toEqual([])
    expect(second!.trace.toolCalls.map((t) => t.spanId)).toEqual([tool.spanId])
    const root = spans.find((s) => s.traceId === tool.traceId && s.parentSpanId === '')!
    const [done] = assembler.addSpans([root])
    expect(done!.completed).toBe('root')
    expect(done!.trace.durationMs).toBe(root.endMs - root.startMs)
  })

  it('completes a trace whose root never comes after the grace period, by the injected clock', () => {
    const { spans } = loadFixture('adk-js.jsonl')
    const c = clock()
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: c.now, limits: { graceMs: 1000, idleMs: 5000 } })
    const children = spans.filter((s) => s.parentSpanId !== '' && s.traceId === spans[0]!.traceId)
    assembler.addSpans(children)
    c.ms = 999
    expect(assembler.tick()).toEqual([])
    c.ms = 1000
    const [graced] = assembler.tick()
    expect(graced).toMatchObject({ completed: 'grace', late: false })
    expect(graced!.trace.durationMs).toBeUndefined()
    // The root arrives late: the trace is revised, not completed twice.
    const [late] = assembler.addSpans(spans.filter((s) => s.parentSpanId === '' && s.traceId === children[0]!.traceId))
    expect(late).toMatchObject({ late: true })
    expect(late!.completed).toBeUndefined()
    expect(late!.trace.durationMs).toBeGreaterThan(0)
    c.ms = 1000 + 5000
    assembler.tick()
    expect(assembler.size()).toBe(0)
  })

  it("completes on ADK's `invocation` span even under an HTTP server span, and times the turn by it", () => {
    const { spans } = loadFixture('adk-python-v1.jsonl')
    const traceId = spans[0]!.traceId
    const root = spans.find((s) => s.traceId === traceId && s.parentSpanId === '')!
    const http: OtlpSpan = { ...root, spanId: 'ffffffffffffffff', name: 'POST /run', startMs: root.startMs - 50, endMs: root.endMs + 50 }
    const underHttp = { ...root, parentSpanId: http.spanId }
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0 })
    assembler.addSpans(spans.filter((s) => s.traceId === traceId && s !== root))
    const [done] = assembler.addSpans([underHttp])
    expect(done).toMatchObject({ completed: 'root', trace: { rootSpanId: root.spanId, durationMs: root.endMs - root.startMs } })
    const [late] = assembler.addSpans([http])
    expect(late).toMatchObject({ late: true, trace: { rootSpanId: root.spanId, durationMs: root.endMs - root.startMs } })
  })

  it('maps nothing for log records whose spans never come, and forgets them after the grace period', () => {
    const { logs } = loadFixture('adk-go.jsonl')
    const c = clock()
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: c.now, limits: { graceMs: 100 } })
    expect(assembler.addLogs(logs)).toEqual([])
    expect(assembler.size()).toBe(2)
    c.ms = 100
    expect(assembler.tick()).toEqual([])
    expect(assembler.flush()).toEqual([])
    expect(assembler.size()).toBe(0)
  })

  it('holds at most maxOpenTraces, completing the least recently touched one when full', () => {
    const { spans } = loadFixture('adk-go.jsonl')
    const [t1, t2] = [...new Set(spans.map((s) => s.traceId))]
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0, limits: { maxOpenTraces: 1 } })
    assembler.addSpans(spans.filter((s) => s.traceId === t1 && s.parentSpanId !== ''))
    const updates = assembler.addSpans(spans.filter((s) => s.traceId === t2).slice(0, 1))
    expect(updates.map((u) => [u.trace.traceId, u.completed])).toEqual([[t1, 'evicted'], [t2, undefined]])
    expect(assembler.size()).toBe(1)
    expect(assembler.dropped().evictedOpen).toBe(1)
  })

  it('maps a trace again only when it gained spans: completing one with nothing new (grace, eviction) reuses its mapping', () => {
    const { spans } = loadFixture('adk-go.jsonl')
    const [t1, t2] = [...new Set(spans.map((s) => s.traceId))]
    const c = clock()
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: c.now, limits: { maxOpenTraces: 2, graceMs: 1000 } })
    const of = (id: string | undefined) => spans.filter((s) => s.traceId === id && s.parentSpanId !== '')
    const [first] = assembler.addSpans(of(t1).slice(0, 1))
    const [grown] = assembler.addSpans(of(t1).slice(1))
    expect(grown!.trace).not.toBe(first!.trace)
    const [other] = assembler.addSpans(of(t2))
    c.ms = 1000
    const graced = assembler.tick()
    expect(graced.map((u) => [u.trace.traceId, u.completed])).toEqual([[t1, 'grace'], [t2, 'grace']])
    expect(graced[0]!.trace).toBe(grown!.trace)
    expect(graced[1]!.trace).toBe(other!.trace)
    // Evicted with nothing new since its last update: the same mapping again.
    const copy = (traceId: string) => of(t1).map((s) => ({ ...s, traceId }))
    const [a, b, d] = ['a', 'b', 'd'].map((x) => x.repeat(32))
    const [open] = assembler.addSpans(copy(a!))
    assembler.addSpans(copy(b!))
    const evicting = assembler.addSpans(copy(d!))
    expect(evicting.map((u) => [u.trace.traceId, u.completed])).toEqual([[a, 'evicted'], [d, undefined]])
    expect(evicting[0]!.trace).toBe(open!.trace)
  })

  it('drops and counts spans past maxSpansPerTrace', () => {
    const { spans } = loadFixture('adk-python-v1.jsonl')
    const trace = spans.filter((s) => s.traceId === spans[0]!.traceId)
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0, limits: { maxSpansPerTrace: 3 } })
    assembler.addSpans(trace)
    expect(assembler.dropped().items).toBe(trace.length - 3)
  })

  it('ignores a span sent twice (exporter retry)', () => {
    const { spans, logs } = loadFixture('adk-go.jsonl')
    const invocations = (s: OtlpSpan[]) => tracesToConversations(s, logs, BOUNDS).flatMap((c) => c.traces.map(toAdkInvocation))
    expect(invocations([...spans, ...spans])).toEqual(invocations(spans))
  })
})

describe('span assembler, any arrival order (property)', () => {
  it.each(FILES)('%s: shuffled spans and log records in any batches give the same invocations and report every call once', (file) => {
    const { spans, logs } = loadFixture(file)
    const items: Array<{ span?: OtlpSpan; log?: OtlpLogRecord }> = [...spans.map((span) => ({ span })), ...logs.map((log) => ({ log }))]
    const inOrder = (() => {
      const a = createSpanAssembler({ bounds: BOUNDS, now: () => 0 })
      return finalInvocations([...a.addSpans(spans), ...a.addLogs(logs), ...a.flush()])
    })()
    fc.assert(
      fc.property(
        fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length }),
        fc.array(fc.nat(items.length), { maxLength: 8 }),
        (shuffled, cuts) => {
          const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0 })
          const bounds = [...new Set([0, ...cuts, shuffled.length])].sort((x, y) => x - y)
          const updates: TraceUpdate[] = []
          for (let i = 0; i + 1 < bounds.length; i++) {
            const batch = shuffled.slice(bounds[i], bounds[i + 1])
            updates.push(...assembler.addSpans(batch.flatMap((b) => (b.span ? [b.span] : []))))
            updates.push(...assembler.addLogs(batch.flatMap((b) => (b.log ? [b.log] : []))))
          }
          updates.push(...assembler.flush())
          expect(finalInvocations(updates)).toEqual(inOrder)
          // Every call of the final invocations was announced exactly once along the way.
          const announced = updates.flatMap((u) => u.newToolCalls.map((t) => `${u.trace.traceId}/${t.call.id}`))
          expect(announced.sort()).toEqual(inOrder.flatMap((i) => i.calls.map((t) => `${i.traceId}/${t.call.id}`)).sort())
        },
      ),
      { numRuns: 60, seed: 19 },
    )
  })
})

/**
 * The bookkeeping of pieces scored before a trace completes: only settled events (conversation and
 * user message known, never the last one mapped), each once; the rest at completion; a mapping that
 * changes what was already pushed stops the trace instead of scoring it twice.
 * Covers: src/otlp-monitor/early.ts.
 */
import { describe, expect, it } from 'vitest'
import type { AdkEvent } from '../../../src/adk/event.ts'
import type { TraceInvocation } from '../../../src/otlp/index.ts'
import { earlyPushes } from '../../../src/otlp-monitor/early.ts'

const event = (author: string, text: string, timestamp = 1): AdkEvent => ({
  invocation_id: 'e-1',
  author,
  content: { role: author === 'user' ? 'user' : 'model', parts: [{ text }] },
  timestamp,
})
const trace = (events: AdkEvent[], known = true): TraceInvocation =>
  ({
    traceId: 't',
    invocationId: 'e-1',
    conversationId: known ? 'c' : undefined,
    events,
    toolCalls: [],
    missing: [],
    issues: [],
    startMs: 0,
  }) as unknown as TraceInvocation

describe('pieces scored early', () => {
  it('pushes settled events once, holds the last, and gives the rest at completion', () => {
    const early = earlyPushes()
    const u = event('user', 'hi')
    const a = event('agent', 'call')
    const b = event('agent', 'results')
    expect(early.next('k', 's', trace([u]))).toEqual([])
    expect(early.next('k', 's', trace([u, a], false))).toEqual([]) // conversation not known yet
    expect(early.next('k', 's', trace([a, b]))).toEqual([]) // no user message first
    expect(early.next('k', 's', trace([u, a]))).toEqual([u])
    expect(early.next('k', 's', trace([u, a]))).toEqual([])
    // The user event re-timed by the root's start is the same piece.
    expect(early.next('k', 's', trace([event('user', 'hi', 0.5), a, b]))).toEqual([a])
    const final = event('agent', 'done')
    expect(early.rest('k', 's', trace([u, a, b, final]))).toEqual({ events: [b, final], early: true })
    // Forgotten once completed: a new trace under the same key starts afresh.
    expect(early.rest('k', 's', trace([u, a]))).toEqual({ events: [u, a], early: false })
  })

  it('stops a trace whose later mapping changes what was pushed', () => {
    const early = earlyPushes()
    const u = event('user', 'hi')
    expect(early.next('k', 's', trace([u, event('agent', 'first'), event('agent', 'x')]))).toHaveLength(2)
    expect(early.next('k', 's', trace([u, event('agent', 'other'), event('agent', 'x'), event('agent', 'y')]))).toEqual([])
    expect(early.rest('k', 's', trace([u, event('agent', 'other'), event('agent', 'x'), event('agent', 'y')]))).toEqual({
      error: expect.stringMatching(/changed events already scored/),
    })
  })
})

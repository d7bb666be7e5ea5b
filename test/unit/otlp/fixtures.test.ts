/**
 * Each recorded agent shape (test/fixtures/otlp) maps to the invocations ADK builds from the same
 * run's events: one conversation per conversation id, tool calls in the model's order, usage,
 * inference count and duration from the spans; with content capture off, what is still known, what
 * is missing and why, and which metrics cannot be scored without content.
 * Covers: src/otlp/invocations.ts, src/otlp/trace-to-events.ts, src/otlp/span-readers.ts, src/otlp/unscorable.ts.
 */
import { describe, expect, it } from 'vitest'
import { toolCallsOf } from '../../../src/adk/invocation.ts'
import { CONTENT_OFF_REASON, toAdkInvocation, tracesToConversations, unscorableMetrics } from '../../../src/otlp/index.ts'
import { EPOCH_MS, TURNS } from '../../fixtures/otlp/scenario.ts'
import { BOUNDS, CAMEL_TOOLS, expectedInvocation, loadFixture, SNAKE_TOOLS } from './support/fixtures.ts'

const SHAPES = [
  { file: 'adk-python-v1.jsonl', conversation: 'session-py-v1', ids: ['e-py-v1-1', 'e-py-v1-2'], tools: SNAKE_TOOLS, app: 'weather_agent' },
  { file: 'adk-python-v2.jsonl', conversation: 'session-py-v2', ids: ['e-py-v2-1', 'e-py-v2-2'], tools: SNAKE_TOOLS, app: 'weather_agent' },
  { file: 'adk-js.jsonl', conversation: 'session-js', ids: ['e-js-1', 'e-js-2'], tools: CAMEL_TOOLS, app: 'weather_agent' },
  { file: 'adk-go.jsonl', conversation: 'session-go', ids: ['e-go-1', 'e-go-2'], tools: undefined, app: 'weather_agent' },
  { file: 'genai-semconv.jsonl', conversation: 'conv-semconv', ids: undefined, tools: SNAKE_TOOLS, app: 'weather_agent' },
]

describe.each(SHAPES)('$file', ({ file, conversation, ids, tools }) => {
  const { spans, logs } = loadFixture(file)
  const conversations = tracesToConversations(spans, logs, BOUNDS)
  const traces = conversations[0]!.traces

  it('is one conversation of two invocations, keyed by the conversation id', () => {
    expect(conversations.map((c) => c.conversationId)).toEqual([conversation])
    expect(conversations[0]!.appName).toBe('weather_agent')
    expect(traces).toHaveLength(2)
  })

  it("maps each turn to the invocation ADK's _convert_events_to_eval_invocations builds", () => {
    traces.forEach((trace, turn) => {
      expect(toAdkInvocation(trace)).toEqual(expectedInvocation(turn, ids?.[turn] ?? trace.traceId, tools))
    })
  })

  it('keeps the tool calls in the order the model gave them, not in span start order', () => {
    const second = toAdkInvocation(traces[1]!)
    expect(toolCallsOf(second).map((c) => c.args?.city)).toEqual(['London', 'Tokyo'])
    expect(traces[1]!.toolCalls.every((t) => t.spanId !== undefined)).toBe(true)
  })

  it('reads usage, inference count and duration from the spans', () => {
    traces.forEach((trace, turn) => {
      const t = TURNS[turn]!
      expect(trace.inferenceCount).toBe(2)
      expect(trace.durationMs).toBeCloseTo(t.rootEnd, 3)
      const usages = trace.events.flatMap((e) => (e.usage_metadata ? [e.usage_metadata] : []))
      const prompts = usages.map((u) => u.promptTokenCount ?? u.prompt_token_count)
      expect(prompts).toEqual(t.llm.map((l) => l.prompt))
      expect(trace.missing).toEqual([])
      expect(trace.issues).toEqual([])
    })
  })
})

describe('content capture off (ADK Python, every content attribute "{}")', () => {
  const { spans, logs } = loadFixture('adk-python-v1-content-off.jsonl')
  const [conversation] = tracesToConversations(spans, logs, BOUNDS)
  const trace = conversation!.traces[0]!

  it('still knows the tool names, model calls, usage and duration', () => {
    expect(trace.toolCalls.map((t) => t.call.name)).toEqual(['get_weather'])
    expect(trace.inferenceCount).toBe(2)
    expect(trace.durationMs).toBeCloseTo(TURNS[0]!.rootEnd, 3)
    const invocation = toAdkInvocation(trace)
    expect(invocation.user_content).toEqual({ role: undefined, parts: [] })
    // The uncaptured answer stands as a text-less thought part, so its call and usage still count.
    expect(invocation.final_response).toEqual({ role: 'model', parts: [{ thought: true }] })
    expect(invocation.creation_timestamp).toBe(EPOCH_MS / 1000)
  })

  it('says what is missing and why', () => {
    expect(trace.missing).toEqual([
      { field: 'user_content', reason: CONTENT_OFF_REASON, cause: 'off' },
      { field: 'final_response', reason: CONTENT_OFF_REASON, cause: 'off' },
      { field: 'tool_arguments', reason: CONTENT_OFF_REASON, cause: 'off' },
      { field: 'tool_responses', reason: CONTENT_OFF_REASON, cause: 'off' },
    ])
  })
})

describe('metrics that cannot be scored without content', () => {
  it('lists the text and argument metrics with the reason, never the count and time metrics', () => {
    const { spans, logs } = loadFixture('adk-python-v1-content-off.jsonl')
    const trace = tracesToConversations(spans, logs, BOUNDS)[0]!.traces[0]!
    const unscorable = unscorableMetrics(trace.missing, [
      'tool_trajectory_avg_score',
      'response_match_score',
      'hallucinations_v1',
      'tool_call_count_v1',
      'inference_call_count_v1',
      'invocation_duration_v1',
      'token_usage_v1',
    ])
    expect([...unscorable.keys()]).toEqual(['tool_trajectory_avg_score', 'response_match_score', 'hallucinations_v1'])
    expect(unscorable.get('response_match_score')).toBe(`final response unknown: ${CONTENT_OFF_REASON}`)
    expect(unscorable.get('tool_trajectory_avg_score')).toBe(`tool arguments unknown: ${CONTENT_OFF_REASON}`)
  })
})

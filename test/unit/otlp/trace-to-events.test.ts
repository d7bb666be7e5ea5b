/** Shapes beyond the recorded fixtures: one trace's spans built here, each with one twist. */
import { describe, expect, it } from 'vitest'
import { toolCallsOf, toolResponsesOf } from '../../../src/adk/invocation.ts'
import { type Attributes, createSpanAssembler, type OtlpSpan, toAdkInvocation, traceToInvocation } from '../../../src/otlp/index.ts'
import { BOUNDS } from './support/fixtures.ts'

const TRACE = 'aa'.repeat(16)
let next = 1
function span(name: string, parent: string, start: number, end: number, attributes: Attributes): OtlpSpan {
  const spanId = (next++).toString(16).padStart(16, '0')
  return {
    traceId: TRACE,
    spanId,
    parentSpanId: parent,
    name,
    startMs: start,
    endMs: end,
    statusCode: 0,
    statusMessage: '',
    attributes,
    resource: {},
    scope: '',
  }
}
const call = (id: string, city: string) => ({ functionCall: { id, name: 'get_weather', args: { city } } })
const request = (text: string) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] })

function agentTrace(llm: Array<{ response: unknown; extra?: Attributes }>, tools: (agent: string) => OtlpSpan[] = () => []) {
  const root = span('invocation', '', 0, 1000, {})
  const agent = span('invoke_agent a', root.spanId, 1, 999, { 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': 'c' })
  const llmSpans = llm.map((l, i) =>
    span('call_llm', agent.spanId, 10 + i * 100, 50 + i * 100, {
      'gcp.vertex.agent.invocation_id': 'e-1',
      'gcp.vertex.agent.llm_request': request('hi'),
      'gcp.vertex.agent.llm_response': JSON.stringify(l.response),
      ...l.extra,
    })
  )
  return [root, agent, ...llmSpans, ...tools(agent.spanId)]
}

describe('trace to ADK events, beyond the fixtures', () => {
  it('keeps a text the model says beside its calls as an intermediate response', () => {
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [{ text: 'Let me look.' }, call('c1', 'Rome')] } } }, {
      response: { content: { role: 'model', parts: [{ text: 'Sunny.' }] } },
    }])
    const invocation = toAdkInvocation(traceToInvocation(TRACE, spans, [], BOUNDS))
    const events = (invocation.intermediate_data as { invocation_events: Array<{ content: { parts: unknown[] } }> }).invocation_events
    expect(events[0]!.content.parts).toEqual([{ text: 'Let me look.' }, {
      function_call: { id: 'c1', name: 'get_weather', args: { city: 'Rome' } },
    }])
    expect(invocation.final_response).toEqual({ role: 'model', parts: [{ text: 'Sunny.' }] })
  })

  it('takes tool results from a merged span alone (ADK JS parallel calls without individual tool spans)', () => {
    const merged = (parent: string) => [
      span('execute_tool (merged)', parent, 60, 70, {
        'gen_ai.tool.name': '(merged tools)',
        'gcp.vertex.agent.tool_call_args': 'N/A',
        'gcp.vertex.agent.tool_response': JSON.stringify({
          content: {
            role: 'user',
            parts: [{ functionResponse: { id: 'c2', name: 'get_weather', response: { t: 2 } } }, {
              functionResponse: { id: 'c1', name: 'get_weather', response: { t: 1 } },
            }],
          },
        }),
      }),
    ]
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [call('c1', 'Rome'), call('c2', 'Oslo')] } } }, {
      response: { content: { role: 'model', parts: [{ text: 'Done.' }] } },
    }], merged)
    const trace = traceToInvocation(TRACE, spans, [], BOUNDS)
    const invocation = toAdkInvocation(trace)
    expect(toolCallsOf(invocation).map((c) => c.id)).toEqual(['c1', 'c2'])
    expect(toolResponsesOf(invocation).map((r) => [r.id, r.response])).toEqual([['c1', { t: 1 }], ['c2', { t: 2 }]])
    expect(trace.toolCalls.map((t) => t.spanId)).toEqual([spans.at(-1)!.spanId, spans.at(-1)!.spanId])
    expect(trace.issues).toEqual([]) // 'N/A' is ADK's placeholder, not bad JSON
  })

  it('names the span and attribute whose JSON is unreadable or over the bounds, and uses the rest', () => {
    const spans = agentTrace([{
      response: { content: { role: 'model', parts: [{ text: 'ok' }] } },
      extra: { 'gcp.vertex.agent.llm_request': '{"contents": [' },
    }])
    const deep = agentTrace([{ response: { content: { role: 'model', parts: [{ text: 'ok' }] }, x: [[[[[1]]]]] } }])
    const trace = traceToInvocation(TRACE, spans, [], BOUNDS)
    expect(trace.issues).toEqual([`span ${spans[2]!.spanId} (call_llm): attribute 'gcp.vertex.agent.llm_request' is not JSON`])
    expect(toAdkInvocation(trace).final_response).toEqual({ role: 'model', parts: [{ text: 'ok' }] })
    expect(trace.missing).toContainEqual({
      field: 'user_content',
      reason: 'no model request in the trace shows the user message',
      cause: 'other',
    })
    const shallow = traceToInvocation(TRACE, deep, [], { ...BOUNDS, maxJsonDepth: 5 })
    expect(shallow.issues).toEqual([
      expect.stringMatching(/attribute 'gcp.vertex.agent.llm_response' nests deeper than 5 at \$\.x\[0\]\[0\]\[0\]\[0\]/),
    ])
  })

  it('counts a streamed partial response as a model call but folds no content from it', () => {
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [{ text: 'Sun' }] }, partial: true } }, {
      response: { content: { role: 'model', parts: [{ text: 'Sunny.' }] } },
    }])
    const trace = traceToInvocation(TRACE, spans, [], BOUNDS)
    expect(trace.inferenceCount).toBe(2)
    expect(toAdkInvocation(trace).final_response).toEqual({ role: 'model', parts: [{ text: 'Sunny.' }] })
    expect((toAdkInvocation(trace).intermediate_data as { invocation_events: unknown[] }).invocation_events).toEqual([])
  })

  it('takes calls from tool spans in start order when there are no model spans at all', () => {
    const root = span('invoke_agent b', '', 0, 100, { 'gen_ai.agent.name': 'b' })
    const t2 = span('execute_tool lookup', root.spanId, 20, 30, { 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.arguments': '{"q":2}' })
    const t1 = span('execute_tool lookup', root.spanId, 10, 15, { 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.arguments': '{"q":1}' })
    const trace = traceToInvocation(TRACE, [root, t2, t1], [], BOUNDS)
    expect(trace.toolCalls.map((t) => [t.call.args, t.spanId])).toEqual([[{ q: 1 }, t1.spanId], [{ q: 2 }, t2.spanId]])
    expect(trace.inferenceCount).toBe(0)
    expect(trace.invocationId).toBe(TRACE)
    expect(trace.conversationId).toBeUndefined()
  })

  it('gives a failed tool its error.type (and status message) as its answer when no response was recorded', () => {
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [call('c1', 'Rome')] } } }, {
      response: { content: { role: 'model', parts: [{ text: 'The lookup failed.' }] } },
    }], (agent) => [{
      ...span('execute_tool get_weather', agent, 60, 70, {
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'c1',
        'error.type': 'HTTP_ERROR',
      }),
      statusCode: 2,
      statusMessage: '503 from the weather service',
    }])
    const trace = traceToInvocation(TRACE, spans, [], BOUNDS)
    expect(toolResponsesOf(toAdkInvocation(trace)).map((r) => r.response)).toEqual([{ error: 'HTTP_ERROR: 503 from the weather service' }])
    expect(trace.missing.map((m) => m.field)).not.toContain('tool_responses')
  })

  it("keeps a tool's returned error as it answered, error.type beside it", () => {
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [call('c1', 'Rome')] } } }], (agent) => [
      span('execute_tool get_weather', agent, 60, 70, {
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'c1',
        'error.type': 'MCP_TOOL_ERROR',
        'gcp.vertex.agent.tool_response': '{"isError":true,"content":[{"type":"text","text":"no such city"}]}',
      }),
    ])
    expect(toolResponsesOf(toAdkInvocation(traceToInvocation(TRACE, spans, [], BOUNDS))).map((r) => r.response)).toEqual([
      { isError: true, content: [{ type: 'text', text: 'no such city' }] },
    ])
  })

  it('does not count a before_model_callback answer as a model call', () => {
    const spans = agentTrace([{
      response: { content: { role: 'model', parts: [{ text: 'Cached answer.' }] } },
      extra: { 'adk.experimental.response.source': 'before_model_callback', 'gen_ai.request.model': 'gemini-2.5-flash' },
    }])
    const trace = traceToInvocation(TRACE, spans, [], BOUNDS)
    expect(trace.inferenceCount).toBe(0)
    expect(toAdkInvocation(trace).final_response).toEqual({ role: 'model', parts: [{ text: 'Cached answer.' }] })
    expect(trace.events.at(-1)).not.toHaveProperty('model_version')
    expect(trace.missing.map((m) => m.field)).not.toContain('token_usage')
  })

  it("reads semconv messages over ADK's own JSON when a span has both", () => {
    const spans = agentTrace([{
      response: { content: { role: 'model', parts: [{ text: 'from llm_response' }] } },
      extra: {
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'from semconv' }] }]),
        'gen_ai.output.messages': JSON.stringify([{
          role: 'assistant',
          parts: [{ type: 'text', content: 'semconv answer' }, { type: 'uri', uri: 'gs://b/f.png', mime_type: 'image/png' }],
        }]),
      },
    }])
    const invocation = toAdkInvocation(traceToInvocation(TRACE, spans, [], BOUNDS))
    expect(invocation.user_content).toEqual({ role: 'user', parts: [{ text: 'from semconv' }] })
    expect(invocation.final_response).toEqual({
      role: 'model',
      parts: [{ text: 'semconv answer' }, { file_data: { mime_type: 'image/png', file_uri: 'gs://b/f.png' } }],
    })
  })

  it("takes the app from the agent under ADK's root, not from another service's agent in the trace", () => {
    const other = span('invoke_agent helm-agent', '', 0, 2000, {
      'gen_ai.agent.name': 'helm-agent',
      'gen_ai.operation.name': 'invoke_agent',
    })
    const spans = agentTrace([{ response: { content: { role: 'model', parts: [{ text: 'ok' }] } } }])
    spans[0]!.parentSpanId = other.spanId
    expect(traceToInvocation(TRACE, [other, ...spans], [], BOUNDS).appName).toBe('a')
  })

  it('ADK Go legacy with <elided> log bodies: elided, naming the Go switch; usage still read', () => {
    // ADK's tracer scope, no call_llm: ADK Go.
    const root = {
      ...span('invoke_agent a', '', 0, 100, { 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': 'c' }),
      scope: 'gcp.vertex.agent',
    }
    const model = {
      ...span('generate_content gemini-2.5-flash', root.spanId, 10, 50, {
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 3,
      }),
      scope: 'gcp.vertex.agent',
    }
    const log = (eventName: string, body: Attributes[string]) => ({
      traceId: TRACE,
      spanId: model.spanId,
      eventName,
      timeMs: 50,
      attributes: {},
      body,
      resource: {},
      scope: '',
    })
    const trace = traceToInvocation(TRACE, [root, model], [
      log('gen_ai.user.message', { content: '<elided>' }),
      log('gen_ai.choice', { index: 0, content: '<elided>' }),
    ], BOUNDS)
    expect(trace.missing.map((m) => [m.field, m.cause])).toEqual([['user_content', 'elided'], ['final_response', 'elided']])
    expect(trace.missing[0]!.reason).toMatch(/"<elided>".*OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true/)
    expect(trace.inferenceCount).toBe(1)
    expect(trace.events.map((e) => e.usage_metadata)).toEqual([{ promptTokenCount: 12, candidatesTokenCount: 3 }])
  })

  it("ADK JS's workflow span under its invocation is not the root: the trace completes at the invocation", () => {
    const root = span('invocation', '', 0, 1000, {})
    const workflow = span('invoke_workflow flow', root.spanId, 10, 900, {
      'gen_ai.operation.name': 'invoke_workflow',
      'adk.workflow.name': 'flow',
      'adk.node.path': 'flow',
    })
    const assembler = createSpanAssembler({ bounds: BOUNDS, now: () => 0 })
    expect(assembler.addSpans([workflow]).map((u) => u.completed)).toEqual([undefined])
    const [atRoot] = assembler.addSpans([root])
    expect([atRoot!.completed, atRoot!.trace.rootSpanId, atRoot!.trace.durationMs]).toEqual(['root', root.spanId, 1000])
  })
})

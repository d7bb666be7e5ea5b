/**
 * An OTLP/JSON request of `count` traces of one span each, a `call_llm` span with a user message and
 * an answer: scoreable, so each would open a session. The flood the containment bench and tests send.
 */
export function llmSpanFlood(
  count: number,
  options: {
    /** The first trace id, as a number (each span's trace is the next one). */
    firstTraceId?: number
    /** Give every span a parent that is never sent, so no trace has a root. */
    rootless?: boolean
  } = {},
): string {
  const first = options.firstTraceId ?? 1
  const llmRequest = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'What is the weather?' }] }] })
  const llmResponse = JSON.stringify({ content: { role: 'model', parts: [{ text: 'Sunny.' }] } })
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: (first + i).toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    ...(options.rootless ? { parentSpanId: 'ffffffffffffffff' } : {}),
    name: 'call_llm',
    startTimeUnixNano: '1763976000000000000',
    endTimeUnixNano: '1763976000500000000',
    attributes: [
      { key: 'gcp.vertex.agent.llm_request', value: { stringValue: llmRequest } },
      { key: 'gcp.vertex.agent.llm_response', value: { stringValue: llmResponse } },
    ],
  }))
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans }] }] })
}

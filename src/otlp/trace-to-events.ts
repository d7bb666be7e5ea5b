/**
 * One trace (one ADK invocation: a `Runner.run_async` turn) to the ADK events it stands for, so the
 * same engine that scores `/run_sse` scores it and the invocation ADK's
 * `_convert_events_to_eval_invocations` builds from the session's events is what evalstream builds
 * from the trace: a user event, then per model call (in start order) the model's response event
 * and the tool results for its calls, each with the agent's name as author.
 *
 * Tool calls come from the model responses in the order the model gave them; `execute_tool` spans
 * only supply results (matched by call id, then by name) and, when a response is unknown (content
 * capture off, or not yet arrived), the calls themselves in start order. A pure function of the
 * spans given: the assembler calls it again whenever a trace gains spans.
 */
import type { Content, FunctionCall, Part } from '../adk/content.ts'
import { AdkEvent } from '../adk/event.ts'
import type { AppDetails } from '../adk/invocation.ts'
import { isRecord } from '../adk/json.ts'
import { callsOf, toContent } from './genai-content.ts'
import type { OtlpLogRecord, OtlpSpan } from './model.ts'
import {
  type ModelRequest,
  type ModelResponse,
  type ReadContext,
  readRequest,
  readResponse,
  readToolSpan,
  type ToolResult,
} from './span-readers.ts'
import { agentNameOf, conversationIdOf, invocationIdOf, isInferenceSpan, isToolSpan, logsBySpan, rootOf, sortByStart } from './span-tree.ts'

/** Why a part of an invocation is unknown when the agent does not capture message content. */
export const CONTENT_OFF_REASON =
  'the agent exported no message content (ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false, or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT not set)'

export type MissingField = 'user_content' | 'final_response' | 'tool_arguments' | 'tool_responses' | 'token_usage'
export type Missing = { field: MissingField; reason: string }

/** A tool call in model order, with the `execute_tool` span that ran it when that span is known. */
export type TracedToolCall = { call: FunctionCall; spanId: string | undefined }

export type TraceInvocation = {
  traceId: string
  invocationId: string
  /** `gen_ai.conversation.id`, else `gcp.vertex.agent.session_id`; undefined until a span carries one. */
  conversationId: string | undefined
  /** The root agent (or workflow) name, else the resource's `service.name`. */
  appName: string | undefined
  /** Set once the trace's root span (no parent) has arrived. */
  rootSpanId: string | undefined
  /** Root end minus start (invocation_duration_v1); undefined before the root arrives. */
  durationMs: number | undefined
  startMs: number
  events: AdkEvent[]
  toolCalls: TracedToolCall[]
  appDetails: AppDetails | undefined
  /** LLM spans seen (`call_llm`, else inference spans such as `generate_content`). */
  inferenceCount: number
  missing: Missing[]
  /** Values that could not be read (bad JSON in an attribute, an event the ADK schema refuses). */
  issues: string[]
}

type Turn = {
  span: OtlpSpan | undefined
  agent: string
  at: number
  request?: ModelRequest
  response?: ModelResponse
  calls: TracedToolCall[]
  results: Part[]
}

/** The user's message: the last user content with a text (not a tool result) in the first model request. */
function userContentOf(turns: readonly Turn[]): Content | undefined {
  const contents = turns.find((t) => t.request)?.request?.contents ?? []
  for (let i = contents.length - 1; i >= 0; i--) {
    const raw = contents[i]
    if (!isRecord(raw) || raw.role !== 'user') continue
    const content = toContent(raw)
    if (content && (content.parts ?? []).some((p) => typeof p.text === 'string' || p.inline_data || p.file_data)) return content
  }
  return undefined
}

function matchResult(call: FunctionCall, results: ToolResult[], used: Set<ToolResult>, after: number): ToolResult | undefined {
  // Individual tool spans first: a merged span only repeats them (with less: no arguments).
  const free = results.filter((r) => !used.has(r)).sort((a, b) => Number(a.merged) - Number(b.merged))
  return (call.id ? free.find((r) => r.callId === call.id) : undefined) ??
    free.find((r) => r.name === call.name && r.callId === undefined && r.startMs >= after) ??
    free.find((r) => r.name === call.name && !call.id && r.startMs >= after)
}

/**
 * @example traceToInvocation('5b8a…', spans, logs, { maxJsonDepth: 100, maxStringLength: 1e6 }).events[0].author // 'user'
 */
export function traceToInvocation(
  traceId: string,
  spans: readonly OtlpSpan[],
  logs: readonly OtlpLogRecord[],
  bounds: ReadContext['bounds'],
): TraceInvocation {
  const ctx: ReadContext = { bounds, issues: [] }
  const sorted = sortByStart(spans)
  const byId = new Map(sorted.map((s) => [s.spanId, s]))
  const logsOf = logsBySpan(logs, byId)
  const root = rootOf(sorted)
  const invocationId = invocationIdOf(sorted, traceId)
  const callLlm = sorted.filter((s) => s.name === 'call_llm')
  const llmSpans = callLlm.length > 0 ? callLlm : sorted.filter(isInferenceSpan)
  const turns: Turn[] = llmSpans.map((span) => {
    const spanLogs = logsOf(span)
    const response = readResponse(span, spanLogs, ctx)
    return {
      span,
      agent: agentNameOf(span, byId),
      at: span.startMs,
      request: readRequest(span, spanLogs, ctx),
      response,
      calls: callsOf(response?.content).map((call) => ({ call, spanId: undefined })),
      results: [],
    }
  })
  const toolResults = sorted.filter(isToolSpan).flatMap((s) => readToolSpan(s, ctx))
  const used = new Set<ToolResult>()
  for (const turn of turns) {
    for (const traced of turn.calls) {
      const result = matchResult(traced.call, toolResults, used, turn.at)
      if (!result) continue
      used.add(result)
      traced.spanId = result.spanId
      if (result.response) {
        turn.results.push({ function_response: { id: traced.call.id ?? result.callId, name: traced.call.name, response: result.response } })
      }
    }
  }
  // Tool spans no known model response asked for: the calls come from the spans themselves.
  const answered = new Set([...used].flatMap((r) => (r.callId ? [r.callId] : [])))
  for (const result of toolResults) {
    if (used.has(result) || (result.merged && result.callId && answered.has(result.callId))) continue
    let turn = turns.filter((t) => !t.response?.content && (t.span?.endMs ?? t.at) <= result.startMs).at(-1)
    if (!turn) {
      const toolSpan = byId.get(result.spanId)!
      turn = { span: undefined, agent: agentNameOf(toolSpan, byId), at: result.startMs, calls: [], results: [] }
      turns.push(turn)
      turns.sort((a, b) => a.at - b.at)
    }
    const call: FunctionCall = { name: result.name, args: result.args ?? {} }
    if (result.callId) call.id = result.callId
    turn.calls.push({ call, spanId: result.spanId })
    if (result.response) {
      turn.results.push({
        function_response: { ...(result.callId ? { id: result.callId } : {}), name: result.name, response: result.response },
      })
    }
  }

  const contentKnown = turns.some((t) => t.request || t.response?.content)
  const events: AdkEvent[] = []
  const push = (raw: Record<string, unknown>, what: string) => {
    const parsed = AdkEvent.safeParse(raw)
    if (parsed.success) events.push(parsed.data)
    else {ctx.issues.push(
        `${what}: not a valid ADK event (${parsed.error.issues[0]?.message ?? 'invalid'} at ${
          parsed.error.issues[0]?.path.join('.') ?? ''
        })`,
      )}
  }
  const userContent = userContentOf(turns)
  const startMs = root?.startMs ?? sorted[0]?.startMs ?? 0
  if (userContent) push({ invocation_id: invocationId, author: 'user', content: userContent, timestamp: startMs / 1000 }, 'user content')
  for (const turn of turns) {
    const r = turn.response
    const parts: Part[] = r?.content?.parts ? [...r.content.parts] : []
    if (!r?.content) { for (const { call } of turn.calls) parts.push({ function_call: call }) }
    const event: Record<string, unknown> = {
      invocation_id: invocationId,
      author: turn.agent,
      timestamp: (turn.span?.endMs ?? turn.at) / 1000,
    }
    if (turn.span && typeof turn.span.attributes['gcp.vertex.agent.event_id'] === 'string') {
      event.id = turn.span.attributes['gcp.vertex.agent.event_id']
    }
    if (parts.length > 0) event.content = { role: 'model', parts }
    if (r?.partial) event.partial = true
    if (r?.usage) event.usage_metadata = r.usage
    if (r?.modelVersion) event.model_version = r.modelVersion
    if (r?.errorCode) event.error_code = r.errorCode
    if (r?.errorMessage) event.error_message = r.errorMessage
    push(event, `model call in span ${turn.span?.spanId ?? '(tool spans)'}`)
    if (turn.results.length > 0) {
      push({
        invocation_id: invocationId,
        author: turn.agent,
        content: { role: 'user', parts: turn.results },
        timestamp: (turn.span?.endMs ?? turn.at) / 1000,
      }, 'tool results')
    }
  }

  const toolCalls = turns.flatMap((t) => t.calls)
  const missing: Missing[] = []
  if (turns.length > 0 && !contentKnown) {
    missing.push({ field: 'user_content', reason: CONTENT_OFF_REASON }, { field: 'final_response', reason: CONTENT_OFF_REASON })
    if (toolCalls.length > 0) missing.push({ field: 'tool_arguments', reason: CONTENT_OFF_REASON })
    if (toolCalls.length > turns.reduce((n, t) => n + t.results.length, 0)) {
      missing.push({ field: 'tool_responses', reason: CONTENT_OFF_REASON })
    }
  } else if (turns.length > 0 && !userContent) {
    missing.push({ field: 'user_content', reason: 'no model request in the trace shows the user message' })
  }
  if (turns.length > 0 && !turns.some((t) => t.response?.usage)) {
    missing.push({ field: 'token_usage', reason: 'the model spans report no token usage' })
  }

  return {
    traceId,
    invocationId,
    conversationId: conversationIdOf(sorted),
    appName: appNameOf(root, sorted),
    rootSpanId: root?.spanId,
    durationMs: root ? root.endMs - root.startMs : undefined,
    startMs,
    events,
    toolCalls,
    appDetails: appDetailsOf(turns),
    inferenceCount: llmSpans.length,
    missing,
    issues: ctx.issues,
  }
}

function appNameOf(root: OtlpSpan | undefined, sorted: readonly OtlpSpan[]): string | undefined {
  const top = root ?? sorted[0]
  for (const key of ['gen_ai.workflow.name', 'gen_ai.agent.name']) {
    const value = top?.attributes[key] ?? sorted.find((s) => typeof s.attributes[key] === 'string')?.attributes[key]
    if (typeof value === 'string') return value
  }
  const service = top?.resource['service.name']
  return typeof service === 'string' ? service : undefined
}

/** ADK's app_details: per agent, the instruction and tools of its first model request. */
function appDetailsOf(turns: readonly Turn[]): AppDetails | undefined {
  const agents: AppDetails['agent_details'] = {}
  for (const turn of turns) {
    if (!turn.request || agents[turn.agent]) continue
    if (turn.request.system === undefined && turn.request.tools === undefined) continue
    agents[turn.agent] = { name: turn.agent, instructions: turn.request.system ?? '', tool_declarations: turn.request.tools ?? [] }
  }
  return Object.keys(agents).length > 0 ? { agent_details: agents } : undefined
}

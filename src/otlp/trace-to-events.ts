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
import type { AdkEvent } from '../adk/event.ts'
import { parseAdkEvent } from '../adk/event-fast.ts'
import type { AppDetails } from '../adk/invocation.ts'
import { isRecord } from '../adk/json.ts'
import { callsOf, toContent } from './genai-content.ts'
import type { OtlpLogRecord, OtlpSpan } from './model.ts'
import {
  type Absence,
  type ModelRequest,
  type ModelResponse,
  type ReadContext,
  readRequest,
  readResponse,
  readToolSpan,
  type ToolResult,
} from './span-readers.ts'
import {
  agentNameOf,
  appNameOf,
  conversationIdOf,
  invocationIdOf,
  isInferenceSpan,
  isRootSpan,
  isToolSpan,
  logsBySpan,
  rootOf,
  sortByStart,
} from './span-tree.ts'
import { contentReason, type ContentSdk, contentSdkOf } from './content-reasons.ts'

export type MissingField = 'user_content' | 'final_response' | 'tool_arguments' | 'tool_responses' | 'token_usage'
/**
 * A part of the invocation the trace does not show, and why (`reason`, with the switch that would
 * show it). `cause` is the kind: content capture off, `<elided>` log bodies, an attribute over the
 * size cap, or (`other`) something else such as a request without the user's text.
 */
export type Missing = { field: MissingField; reason: string; cause: Absence | 'other' }

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
  /** Why the results of some of this turn's calls are unknown (their tool spans carry no response). */
  resultsAbsent?: Absence
  /** Why some calls' arguments are unknown (calls known only from tool spans without arguments). */
  argsAbsent?: Absence
}

/**
 * The user's message: the last user content with a text (not a tool result) in the first model
 * request whose contents are known (each request repeats the conversation so far).
 */
function userContentOf(turns: readonly Turn[]): Content | undefined {
  const contents = turns.find((t) => t.request && t.request.contents.length > 0)?.request?.contents ?? []
  for (let i = contents.length - 1; i >= 0; i--) {
    const raw = contents[i]
    if (!isRecord(raw) || raw.role !== 'user') continue
    const content = toContent(raw)
    if (content && (content.parts ?? []).some((p) => typeof p.text === 'string' || p.inline_data || p.file_data)) return content
  }
  return undefined
}

/** Tool results by call id as later model requests repeat them (semconv `tool` messages, ADK's contents). */
function resultsInRequests(turns: readonly Turn[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>()
  for (const turn of turns) {
    for (const raw of turn.request?.contents ?? []) {
      for (const part of toContent(raw)?.parts ?? []) {
        const r = part.function_response
        if (r?.id && r.response && !out.has(r.id)) out.set(r.id, r.response)
      }
    }
  }
  return out
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
  // ADK Python's inference span under call_llm holds the usage and, on the semconv path, the content.
  const inferenceChildren = new Map<string, OtlpSpan[]>()
  if (callLlm.length > 0) {
    for (const s of sorted) {
      if (s.parentSpanId && isInferenceSpan(s)) {
        inferenceChildren.set(s.parentSpanId, [...(inferenceChildren.get(s.parentSpanId) ?? []), s])
      }
    }
  }
  const innerOf = (span: OtlpSpan) => inferenceChildren.get(span.spanId) ?? []
  const turns: Turn[] = llmSpans.map((span) => {
    const spanLogs = logsOf(span)
    const inner = innerOf(span)
    const response = readResponse(span, inner, spanLogs, ctx)
    return {
      span,
      agent: agentNameOf(span, byId),
      at: span.startMs,
      request: readRequest(span, inner, spanLogs, ctx),
      response,
      calls: callsOf(response?.content).map((call) => ({ call, spanId: undefined })),
      results: [],
    }
  })
  const toolResults = sorted.filter(isToolSpan).flatMap((s) => readToolSpan(s, ctx))
  const used = new Set<ToolResult>()
  // Read only when a tool span lacks its result: converting every request's history costs.
  let requested: Map<string, Record<string, unknown>> | undefined
  for (const turn of turns) {
    for (const traced of turn.calls) {
      const result = matchResult(traced.call, toolResults, used, turn.at)
      if (!result) continue
      used.add(result)
      traced.spanId = result.spanId
      // A tool span without its result (capture off for tool spans) may still be answered in the next request.
      const response = result.response ?? (traced.call.id ? (requested ??= resultsInRequests(turns)).get(traced.call.id) : undefined)
      if (response) {
        turn.results.push({ function_response: { id: traced.call.id ?? result.callId, name: traced.call.name, response } })
      } else turn.resultsAbsent = turn.response?.absent ?? 'off'
    }
  }
  // Tool spans no known model response asked for: the calls come from the spans themselves.
  const answered = new Set([...used].flatMap((r) => (r.callId ? [r.callId] : [])))
  for (const result of toolResults) {
    if (used.has(result) || (result.merged && result.callId && answered.has(result.callId))) continue
    // The model call that asked for it started before it (ADK Go's tool spans are siblings that may overlap it).
    let turn = turns.filter((t) => !t.response?.content && t.at <= result.startMs).at(-1)
    if (!turn) {
      const toolSpan = byId.get(result.spanId)!
      turn = { span: undefined, agent: agentNameOf(toolSpan, byId), at: result.startMs, calls: [], results: [] }
      turns.push(turn)
      turns.sort((a, b) => a.at - b.at)
    }
    const call: FunctionCall = { name: result.name, args: result.args ?? {} }
    if (result.callId) call.id = result.callId
    turn.calls.push({ call, spanId: result.spanId })
    if (!result.args) turn.argsAbsent = turn.response?.absent ?? 'off'
    if (result.response) {
      turn.results.push({
        function_response: { ...(result.callId ? { id: result.callId } : {}), name: result.name, response: result.response },
      })
    } else turn.resultsAbsent = turn.response?.absent ?? 'off'
  }
  const events: AdkEvent[] = []
  const push = (raw: Record<string, unknown>, what: string) => {
    const parsed = parseAdkEvent(raw)
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
    // A model call whose answer was not captured still happened and still cost tokens: ADK counts
    // calls and usage only on events with content, so it stands as a thought part without text,
    // which no text metric reads (and the missing final response makes those NOT_EVALUATED).
    if (parts.length === 0 && r?.absent && !r.answeredBy) parts.push({ thought: true })
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
  const missing = missingParts(turns, userContent, contentSdkOf(sorted), root !== undefined && isRootSpan(root))
  const modelCalls = turns.filter((t) => t.span && !t.response?.answeredBy).length

  return {
    traceId,
    invocationId,
    conversationId: conversationIdOf(sorted),
    appName: appNameOf(root, sorted, byId),
    rootSpanId: root?.spanId,
    durationMs: root ? root.endMs - root.startMs : undefined,
    startMs,
    events,
    toolCalls,
    appDetails: appDetailsOf(turns),
    inferenceCount: modelCalls,
    missing,
    issues: ctx.issues,
  }
}

/**
 * What is unknown and why. Content is judged per part: the user's text (the first request that shows
 * contents), the final response (the last model call's), tool arguments and results (calls known
 * only from tool spans). Counts and usage never depend on it. Before the root arrives, a tool call
 * may still come whose arguments nothing will show: while any call known so far lacks them, or a
 * model answer was not captured, the arguments count as unknown (and no early verdict reads them).
 */
function missingParts(turns: readonly Turn[], userContent: Content | undefined, sdk: ContentSdk, rootArrived: boolean): Missing[] {
  const missing: Missing[] = []
  const because = (field: MissingField, absence: Absence): Missing => ({ field, reason: contentReason(absence, sdk), cause: absence })
  const modelTurns = turns.filter((t) => t.span)
  const uncaptured = modelTurns.find((t) => t.response?.absent)?.response?.absent
  const argsAbsent = turns.find((t) => t.argsAbsent)?.argsAbsent ?? (rootArrived ? undefined : uncaptured)
  if (modelTurns.length === 0) return argsAbsent ? [because('tool_arguments', argsAbsent)] : missing
  if (!userContent) {
    const shown = modelTurns.some((t) => t.request && t.request.contents.length > 0)
    const absence = modelTurns.find((t) => t.request?.absent)?.request?.absent
    if (!shown && absence) missing.push(because('user_content', absence))
    else missing.push({ field: 'user_content', reason: 'no model request in the trace shows the user message', cause: 'other' })
  }
  const last = modelTurns.at(-1)!.response
  if (!last?.content && last?.absent) missing.push(because('final_response', last.absent))
  if (argsAbsent) missing.push(because('tool_arguments', argsAbsent))
  const resultsAbsent = turns.find((t) => t.resultsAbsent)?.resultsAbsent
  if (resultsAbsent) missing.push(because('tool_responses', resultsAbsent))
  if (!modelTurns.some((t) => t.response?.usage || t.response?.answeredBy)) {
    missing.push({ field: 'token_usage', reason: 'the model spans report no token usage', cause: 'other' })
  }
  return missing
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

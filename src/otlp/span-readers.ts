/**
 * What one span (with its log events) says, in every shape ADK and GenAI-semconv frameworks emit:
 * the model request and response of an LLM span, the call and result of a tool span, token usage,
 * the agent it ran in. Readers never throw: a value they cannot read is an issue and counts as unknown.
 */
import type { Content } from '../adk/content.ts'
import type { JsonBounds } from '../adk/json-bounds.ts'
import { isRecord } from '../adk/json.ts'
import { attrNumber } from './attributes.ts'
import { instructionText, isEmptyObject, parseJsonAttribute, semconvMessages, toContent, toolDeclarations } from './genai-content.ts'
import type { AttrValue, OtlpLogRecord, OtlpSpan } from './model.ts'

export type ReadContext = { bounds: JsonBounds; issues: string[] }

/**
 * Parsed JSON attributes by the attributes object they came from. The assembler maps a trace again
 * each time it gains spans; without this, a trace sent one span per request would parse every
 * earlier span's (possibly megabyte) JSON again each time: quadratic in the trace's size.
 */
const parsedAttributes = new WeakMap<object, Map<string, { value: unknown; issue?: string }>>()

/** An attribute holding JSON, parsed; undefined when absent, empty (`{}`, content off) or unreadable. */
function jsonAttr(span: { spanId: string; name: string; attributes: Record<string, AttrValue> }, key: string, ctx: ReadContext): unknown {
  let cache = parsedAttributes.get(span.attributes)
  if (!cache) parsedAttributes.set(span.attributes, cache = new Map())
  let entry = cache.get(key)
  if (!entry) {
    const parsed = parseJsonAttribute(span.attributes[key], ctx.bounds)
    const quiet = span.attributes[key] === 'N/A' || span.attributes[key] === '<not serializable>'
    entry = !parsed
      ? { value: undefined }
      : !parsed.ok
      ? { value: undefined, ...(quiet ? {} : { issue: `span ${span.spanId} (${span.name}): attribute '${key}' ${parsed.error}` }) }
      : { value: isEmptyObject(parsed.value) ? undefined : parsed.value }
    cache.set(key, entry)
  }
  if (entry.issue) ctx.issues.push(entry.issue)
  return entry.value
}

/**
 * `contents` as sent (either spelling), converted only where read: a request repeats the whole
 * conversation so far, and only the user's last message of the first request is needed.
 */
export type ModelRequest = { contents: readonly unknown[]; system: string | undefined; tools: unknown[] | undefined }
export type ModelResponse = {
  content: Content | undefined
  usage: Record<string, unknown> | undefined
  modelVersion: string | undefined
  partial: boolean
  errorCode: string | undefined
  errorMessage: string | undefined
}

function logsNamed(logs: readonly OtlpLogRecord[], name: string): OtlpLogRecord[] {
  return logs.filter((l) => l.eventName === name)
}

/** The detail event's attributes, as a pseudo-span so the same JSON reader applies. */
function detailsOf(span: OtlpSpan, logs: readonly OtlpLogRecord[]) {
  const details = logsNamed(logs, 'gen_ai.client.inference.operation.details').at(-1)
  return details ? { spanId: span.spanId, name: `${span.name} event`, attributes: details.attributes } : undefined
}

/** ADK's llm_request JSON, ADK Go's user/system message events, or semconv input messages. */
export function readRequest(span: OtlpSpan, logs: readonly OtlpLogRecord[], ctx: ReadContext): ModelRequest | undefined {
  const request = jsonAttr(span, 'gcp.vertex.agent.llm_request', ctx)
  if (isRecord(request)) {
    const config = isRecord(request.config) ? request.config : {}
    const contents = Array.isArray(request.contents) ? request.contents : []
    const tools = config.tools
    return {
      contents,
      system: instructionText(config.system_instruction ?? config.systemInstruction),
      tools: Array.isArray(tools) ? tools : undefined,
    }
  }
  const userLogs = logsNamed(logs, 'gen_ai.user.message')
  const systemLog = logsNamed(logs, 'gen_ai.system.message').at(-1)
  if (userLogs.length > 0 || systemLog) {
    const contents = userLogs
      .map((
        l,
      ) => (isRecord(l.body)
        ? (l.body.content ?? l.body)
        : typeof l.body === 'string'
        ? { role: 'user', parts: [{ text: l.body }] }
        : undefined)
      )
      .map((raw) => (typeof raw === 'string' ? toContent({ role: 'user', parts: [{ text: raw }] }) : toContent(raw)))
      .filter((c): c is Content => c !== undefined)
    const system = systemLog ? instructionText(isRecord(systemLog.body) ? systemLog.body.content : systemLog.body) : undefined
    return { contents, system, tools: undefined }
  }
  for (const source of [detailsOf(span, logs), span]) {
    if (!source) continue
    const messages = jsonAttr(source, 'gen_ai.input.messages', ctx)
    const system = jsonAttr(source, 'gen_ai.system_instructions', ctx) ?? source.attributes['gen_ai.system_instructions']
    const tools = jsonAttr(source, 'gen_ai.tool.definitions', ctx)
    if (messages === undefined && system === undefined && tools === undefined) continue
    return {
      contents: semconvMessages(messages),
      system: instructionText(system),
      tools: tools === undefined ? undefined : toolDeclarations(tools),
    }
  }
  return undefined
}

/** Gemini usage metadata from the GenAI usage attributes (ADK Go counts thoughts in output_tokens). */
export function usageFromAttributes(span: OtlpSpan): Record<string, unknown> | undefined {
  const input = attrNumber(span.attributes['gen_ai.usage.input_tokens'])
  const output = attrNumber(span.attributes['gen_ai.usage.output_tokens'])
  const cached = attrNumber(span.attributes['gen_ai.usage.cache_read.input_tokens'])
  const reasoning = attrNumber(span.attributes['gen_ai.usage.reasoning.output_tokens'])
  if (input === undefined && output === undefined) return undefined
  const usage: Record<string, unknown> = {}
  if (input !== undefined) usage.promptTokenCount = input
  if (cached !== undefined) usage.cachedContentTokenCount = cached
  if (output !== undefined) usage.candidatesTokenCount = reasoning !== undefined ? Math.max(0, output - reasoning) : output
  if (reasoning !== undefined) usage.thoughtsTokenCount = reasoning
  return usage
}

/** ADK's llm_response JSON, ADK Go's `gen_ai.choice` event, or semconv output messages. */
export function readResponse(span: OtlpSpan, logs: readonly OtlpLogRecord[], ctx: ReadContext): ModelResponse | undefined {
  const modelVersion = [span.attributes['gen_ai.response.model'], span.attributes['gen_ai.request.model']].find((v) =>
    typeof v === 'string'
  ) as string | undefined
  const base: ModelResponse = {
    content: undefined,
    usage: usageFromAttributes(span),
    modelVersion,
    partial: false,
    errorCode: undefined,
    errorMessage: undefined,
  }
  const response = jsonAttr(span, 'gcp.vertex.agent.llm_response', ctx)
  if (isRecord(response)) {
    const usage = response.usage_metadata ?? response.usageMetadata
    const version = response.model_version ?? response.modelVersion
    const errorCode = response.error_code ?? response.errorCode
    const errorMessage = response.error_message ?? response.errorMessage
    return {
      content: toContent(response.content),
      usage: isRecord(usage) ? usage : base.usage,
      modelVersion: typeof version === 'string' ? version : modelVersion,
      partial: response.partial === true,
      errorCode: typeof errorCode === 'string' ? errorCode : undefined,
      errorMessage: typeof errorMessage === 'string' ? errorMessage : undefined,
    }
  }
  const choice = logsNamed(logs, 'gen_ai.choice').at(-1)
  if (choice && isRecord(choice.body)) {
    const raw = choice.body.content ?? choice.body.message
    const content = toContent(raw) ?? semconvMessages([raw]).at(0)
    return { ...base, content: content ? { ...content, role: 'model' } : undefined }
  }
  for (const source of [detailsOf(span, logs), span]) {
    const messages = source && jsonAttr(source, 'gen_ai.output.messages', ctx)
    if (messages === undefined) continue
    const parts = semconvMessages(messages).filter((m) => m.role === 'model').flatMap((m) => m.parts ?? [])
    return { ...base, content: parts.length > 0 ? { role: 'model', parts } : undefined }
  }
  // No content (capture off), but the usage attributes still say what the call cost.
  return base.usage ? base : undefined
}

export type ToolResult = {
  spanId: string
  /** From an `execute_tool (merged)` span, which repeats what the individual tool spans say. */
  merged: boolean
  callId: string | undefined
  name: string
  args: Record<string, unknown> | undefined
  response: Record<string, unknown> | undefined
  startMs: number
  endMs: number
}

const NOT_AN_ID = new Set(['', '<not specified>'])

/** A tool span's call and result; a merged span (parallel calls) gives one per response it holds. */
export function readToolSpan(span: OtlpSpan, ctx: ReadContext): ToolResult[] {
  const toolName = span.attributes['gen_ai.tool.name']
  const name = typeof toolName === 'string' ? toolName : span.name.replace(/^execute_tool\s*/, '')
  const base = { spanId: span.spanId, startMs: span.startMs, endMs: span.endMs, merged: false }
  const response = jsonAttr(span, 'gcp.vertex.agent.tool_response', ctx) ?? jsonAttr(span, 'gen_ai.tool.call.result', ctx)
  if (name === '(merged tools)' || span.name === 'execute_tool (merged)') {
    // ADK writes the merged function-response Event itself.
    const content = isRecord(response) ? toContent(response.content) : undefined
    return (content?.parts ?? []).flatMap((p) => {
      const r = p.function_response
      return r
        ? [{ ...base, merged: true, callId: r.id ?? undefined, name: r.name ?? '', args: undefined, response: r.response ?? undefined }]
        : []
    })
  }
  const callId = span.attributes['gen_ai.tool.call.id']
  const args = jsonAttr(span, 'gcp.vertex.agent.tool_call_args', ctx) ?? jsonAttr(span, 'gen_ai.tool.call.arguments', ctx)
  return [
    {
      ...base,
      callId: typeof callId === 'string' && !NOT_AN_ID.has(callId) ? callId : undefined,
      name,
      args: isRecord(args) ? args : undefined,
      response: response === undefined ? undefined : isRecord(response) ? response : { result: response },
    },
  ]
}

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
 * Why a request's or response's content is unknown: `off` (content capture off: ADK writes `{}` or
 * nothing), `elided` (message log records whose bodies say `<elided>`), `size` (a semconv content
 * attribute left unset because it was over ADK's size cap while its siblings were written).
 */
export type Absence = 'off' | 'elided' | 'size'

/**
 * `contents` as sent (either spelling), converted only where read: a request repeats the whole
 * conversation so far, and only the user's last message of the first request is needed. `absent`
 * says why `contents` is unknown when it is empty.
 */
export type ModelRequest = { contents: readonly unknown[]; system: string | undefined; tools: unknown[] | undefined; absent?: Absence }
export type ModelResponse = {
  content: Content | undefined
  usage: Record<string, unknown> | undefined
  modelVersion: string | undefined
  partial: boolean
  errorCode: string | undefined
  errorMessage: string | undefined
  /** Why `content` is unknown, when it is. */
  absent?: Absence
  /** Set when no model was called: a `before_model_callback` answered (`adk.experimental.response.source`). */
  answeredBy?: string
}

type Source = { spanId: string; name: string; attributes: Record<string, AttrValue> }

function logsNamed(logs: readonly OtlpLogRecord[], name: string): OtlpLogRecord[] {
  return logs.filter((l) => l.eventName === name)
}

/** The detail event's attributes, as a pseudo-span so the same JSON reader applies. */
function detailsOf(span: OtlpSpan, logs: readonly OtlpLogRecord[]): Source | undefined {
  const details = logsNamed(logs, 'gen_ai.client.inference.operation.details').at(-1)
  return details ? { spanId: span.spanId, name: `${span.name} event`, attributes: details.attributes } : undefined
}

/**
 * Where GenAI semconv content can be for one model call, in the order read: the LLM span, its
 * inference children (ADK Python puts it on `generate_content` under `call_llm`), the details event.
 */
function semconvSources(span: OtlpSpan, inner: readonly OtlpSpan[], logs: readonly OtlpLogRecord[]): Source[] {
  const details = detailsOf(span, logs)
  return [span, ...inner, ...(details ? [details] : [])]
}

const SEMCONV_CONTENT = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions']

/**
 * Why semconv `key` is unknown: when a source wrote another content attribute, capture was on and
 * this one was left out for its size (every model call has input and output messages).
 */
function semconvAbsence(sources: readonly Source[], key: string): Absence | undefined {
  const capturing = sources.some((s) => SEMCONV_CONTENT.some((k) => k !== key && s.attributes[k] !== undefined))
  return capturing ? 'size' : undefined
}

const ELIDED = '<elided>'

/** An attribute that is there and is not ADK's content-off `{}`, yet could not be read: an issue, not capture off. */
function unreadable(span: OtlpSpan, key: string): boolean {
  const raw = span.attributes[key]
  return raw !== undefined && raw !== null && !(typeof raw === 'string' && /^\s*(\{\s*\})?\s*$/.test(raw))
}

/** A message log record whose body ADK replaced with `<elided>` (content capture off for logs). */
function isElided(log: OtlpLogRecord): boolean {
  const body = log.body
  return body === ELIDED || (isRecord(body) && (body.content === ELIDED || body.message === ELIDED))
}

function firstJson(sources: readonly Source[], key: string, ctx: ReadContext): unknown {
  for (const source of sources) {
    const value = jsonAttr(source, key, ctx)
    if (value !== undefined) return value
  }
  return undefined
}

/**
 * The model request, wherever ADK put it: semconv `gen_ai.input.messages` (span, inference child or
 * details event; these win when ADK's own JSON is there too), ADK's `llm_request` JSON, ADK Go's
 * user/system message events. `absent` says why the contents are unknown when they are.
 */
export function readRequest(span: OtlpSpan, inner: readonly OtlpSpan[], logs: readonly OtlpLogRecord[], ctx: ReadContext): ModelRequest {
  const sources = semconvSources(span, inner, logs)
  const messages = firstJson(sources, 'gen_ai.input.messages', ctx)
  const semconvSystem = firstJson(sources, 'gen_ai.system_instructions', ctx) ??
    sources.map((s) => s.attributes['gen_ai.system_instructions']).find((v) => typeof v === 'string')
  const semconvTools = firstJson(sources, 'gen_ai.tool.definitions', ctx)
  const request = jsonAttr(span, 'gcp.vertex.agent.llm_request', ctx)
  const config = isRecord(request) && isRecord(request.config) ? request.config : {}
  const system = instructionText(semconvSystem) ?? instructionText(config.system_instruction ?? config.systemInstruction)
  const tools = semconvTools !== undefined ? toolDeclarations(semconvTools) : Array.isArray(config.tools) ? config.tools : undefined
  if (messages !== undefined) return { contents: semconvMessages(messages), system, tools }
  if (isRecord(request)) return { contents: Array.isArray(request.contents) ? request.contents : [], system, tools }
  const userLogs = logsNamed(logs, 'gen_ai.user.message')
  const systemLog = logsNamed(logs, 'gen_ai.system.message').at(-1)
  const readable = userLogs.filter((l) => !isElided(l))
  const logSystem = systemLog && !isElided(systemLog)
    ? instructionText(isRecord(systemLog.body) ? systemLog.body.content : systemLog.body)
    : undefined
  if (readable.length > 0 || logSystem !== undefined) {
    const contents = readable
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
    return { contents, system: system ?? logSystem, tools, ...(contents.length === 0 ? { absent: 'elided' as const } : {}) }
  }
  if (unreadable(span, 'gcp.vertex.agent.llm_request')) return { contents: [], system, tools }
  const absent: Absence = semconvAbsence(sources, 'gen_ai.input.messages') ?? (userLogs.some(isElided) ? 'elided' : 'off')
  return { contents: [], system, tools, absent }
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

/**
 * The model response: semconv `gen_ai.output.messages` (span, inference child, details event),
 * ADK's `llm_response` JSON, or ADK Go's `gen_ai.choice` event. Usage comes from the response where
 * it says it, else from the usage attributes of the span or its inference child: token counts never
 * depend on content capture. A `before_model_callback` answer (no model called) has no usage.
 */
export function readResponse(span: OtlpSpan, inner: readonly OtlpSpan[], logs: readonly OtlpLogRecord[], ctx: ReadContext): ModelResponse {
  const source = span.attributes['adk.experimental.response.source']
  const answeredBy = typeof source === 'string' && source !== '' && source !== 'model' ? source : undefined
  const modelVersion = answeredBy
    ? undefined
    : [span, ...inner].flatMap((s) => [s.attributes['gen_ai.response.model'], s.attributes['gen_ai.request.model']])
      .find((v): v is string => typeof v === 'string')
  const base: ModelResponse = {
    content: undefined,
    usage: answeredBy ? undefined : [span, ...inner].map(usageFromAttributes).find((u) => u !== undefined),
    modelVersion,
    partial: false,
    errorCode: undefined,
    errorMessage: undefined,
    ...(answeredBy ? { answeredBy } : {}),
  }
  const sources = semconvSources(span, inner, logs)
  const response = jsonAttr(span, 'gcp.vertex.agent.llm_response', ctx)
  const adk = isRecord(response) ? response : undefined
  const usage = adk?.usage_metadata ?? adk?.usageMetadata
  const version = adk?.model_version ?? adk?.modelVersion
  const errorCode = adk?.error_code ?? adk?.errorCode
  const errorMessage = adk?.error_message ?? adk?.errorMessage
  const fromAdk: ModelResponse = {
    ...base,
    usage: isRecord(usage) ? usage : base.usage,
    modelVersion: typeof version === 'string' ? version : base.modelVersion,
    partial: adk?.partial === true,
    errorCode: typeof errorCode === 'string' ? errorCode : undefined,
    errorMessage: typeof errorMessage === 'string' ? errorMessage : undefined,
  }
  const messages = firstJson(sources, 'gen_ai.output.messages', ctx)
  if (messages !== undefined) {
    const parts = semconvMessages(messages).filter((m) => m.role === 'model').flatMap((m) => m.parts ?? [])
    return { ...fromAdk, content: parts.length > 0 ? { role: 'model', parts } : undefined }
  }
  if (adk) return { ...fromAdk, content: toContent(adk.content) }
  const choice = logsNamed(logs, 'gen_ai.choice').at(-1)
  if (choice && isRecord(choice.body) && !isElided(choice)) {
    const raw = choice.body.content ?? choice.body.message
    const content = toContent(raw) ?? semconvMessages([raw]).at(0)
    if (content) return { ...base, content: { ...content, role: 'model' } }
  }
  if (unreadable(span, 'gcp.vertex.agent.llm_response')) return base
  const absent: Absence = semconvAbsence(sources, 'gen_ai.output.messages') ?? (choice && isElided(choice) ? 'elided' : 'off')
  return { ...base, absent }
}

export type ToolResult = {
  spanId: string
  /** From an `execute_tool (merged)` span, which repeats what the individual tool spans say. */
  merged: boolean
  callId: string | undefined
  name: string
  args: Record<string, unknown> | undefined
  response: Record<string, unknown> | undefined
  /** `error.type` (raised errors and errors the tool returned), with the span's status message. */
  error: string | undefined
  startMs: number
  endMs: number
}

const NOT_AN_ID = new Set(['', '<not specified>'])

function toolError(span: OtlpSpan): string | undefined {
  const type = span.attributes['error.type']
  if (typeof type !== 'string' || type === '') return undefined
  return span.statusMessage && span.statusMessage !== type ? `${type}: ${span.statusMessage}` : type
}

/**
 * A tool span's call and result; a merged span (parallel calls) gives one per response it holds.
 * Semconv `gen_ai.tool.call.arguments` / `result` win over ADK's own attributes. A tool that failed
 * without a recorded response answers `{error: <error.type>}`, as ADK's function response would.
 */
export function readToolSpan(span: OtlpSpan, ctx: ReadContext): ToolResult[] {
  const toolName = span.attributes['gen_ai.tool.name']
  const name = typeof toolName === 'string' ? toolName : span.name.replace(/^execute_tool\s*/, '')
  const error = toolError(span)
  const base = { spanId: span.spanId, startMs: span.startMs, endMs: span.endMs, merged: false, error }
  const response = jsonAttr(span, 'gen_ai.tool.call.result', ctx) ?? jsonAttr(span, 'gcp.vertex.agent.tool_response', ctx)
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
  const args = jsonAttr(span, 'gen_ai.tool.call.arguments', ctx) ?? jsonAttr(span, 'gcp.vertex.agent.tool_call_args', ctx)
  const known = response === undefined ? (error ? { error } : undefined) : isRecord(response) ? response : { result: response }
  return [
    {
      ...base,
      callId: typeof callId === 'string' && !NOT_AN_ID.has(callId) ? callId : undefined,
      name,
      args: isRecord(args) ? args : undefined,
      response: known,
    },
  ]
}

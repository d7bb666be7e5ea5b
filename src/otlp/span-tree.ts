/**
 * Where a span sits in its trace and what kind it is: LLM, tool or root; the agent it ran in (its
 * own `gen_ai.agent.name`, else the nearest `invoke_agent` ancestor's); the ids that tie a trace to
 * an ADK invocation and conversation, read from whichever span carries them.
 */
import type { OtlpLogRecord, OtlpSpan } from './model.ts'

const INFERENCE_OPERATIONS = new Set(['generate_content', 'chat', 'text_completion'])

function op(span: OtlpSpan): string {
  const value = span.attributes['gen_ai.operation.name']
  return typeof value === 'string' ? value : ''
}

/** Spans in start order (ties by span id), so a result never depends on arrival order. */
export function sortByStart(spans: readonly OtlpSpan[]): OtlpSpan[] {
  return [...spans].sort((a, b) => a.startMs - b.startMs || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0))
}

/** A model call: `generate_content {model}` (ADK Go, Python's inner span) or a semconv `chat` span. */
export function isInferenceSpan(span: OtlpSpan): boolean {
  return INFERENCE_OPERATIONS.has(op(span)) || /^(generate_content|chat|text_completion)( |$)/.test(span.name)
}

export function isToolSpan(span: OtlpSpan): boolean {
  return op(span) === 'execute_tool' || span.name.startsWith('execute_tool')
}

/**
 * A workflow span inside the turn, never its root: nested in another workflow (ADK Python schema v2
 * marks it `gen_ai.workflow.nested`), or ADK JS's workflow node (`adk.node.path`), which runs under
 * the runner's `invocation` span.
 */
function isNestedWorkflow(span: OtlpSpan): boolean {
  const nested = span.attributes['gen_ai.workflow.nested']
  return nested === true || nested === 'true' || span.attributes['adk.node.path'] !== undefined
}

/**
 * ADK's own root of a turn, whatever its parent (an HTTP server span, an A2A request, a remote
 * parent): the runner's `invocation` (ADK Python schema v1, JS), or an `invoke_workflow` that is not
 * nested (ADK Python schema v2, ADK Go semconv 1.44).
 */
export function isAdkRoot(span: OtlpSpan): boolean {
  if (span.name === 'invocation') return true
  return (op(span) === 'invoke_workflow' || span.name.startsWith('invoke_workflow')) && !isNestedWorkflow(span)
}

/** Whether a span ends its trace's turn: ADK's root (above), or any span without a parent. */
export function isRootSpan(span: OtlpSpan): boolean {
  return isAdkRoot(span) || span.parentSpanId === ''
}

/**
 * The turn's root: ADK's `invocation` where there is one, else a workflow root, else the parentless
 * span. Its duration is the turn's, so an outer HTTP span's time spent before and after the turn
 * is not counted.
 */
export function rootOf(sorted: readonly OtlpSpan[]): OtlpSpan | undefined {
  return sorted.find((s) => s.name === 'invocation') ?? sorted.find(isAdkRoot) ?? sorted.find((s) => s.parentSpanId === '')
}

function firstString(sorted: readonly OtlpSpan[], key: string): string | undefined {
  for (const span of sorted) {
    const value = span.attributes[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/** ADK's invocation id where a span carries it, else the trace id (one trace is one turn). */
export function invocationIdOf(sorted: readonly OtlpSpan[], traceId: string): string {
  return firstString(sorted, 'gcp.vertex.agent.invocation_id') ?? traceId
}

export function conversationIdOf(sorted: readonly OtlpSpan[]): string | undefined {
  return firstString(sorted, 'gen_ai.conversation.id') ?? firstString(sorted, 'gcp.vertex.agent.session_id')
}

/** The agent a span ran in; walks up at most as many parents as the trace has spans. */
export function agentNameOf(span: OtlpSpan, byId: ReadonlyMap<string, OtlpSpan>): string {
  let current: OtlpSpan | undefined = span
  for (let steps = 0; current && steps <= byId.size; steps++) {
    const name = current.attributes['gen_ai.agent.name']
    if (typeof name === 'string' && name !== '') return name
    if (op(current) === 'invoke_agent' || current.name.startsWith('invoke_agent ')) {
      const fromName = current.name.replace(/^invoke_agent\s*/, '')
      if (fromName) return fromName
    }
    current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined
  }
  return 'agent'
}

/**
 * Log records by the span they belong to; an LLM span also gets its child inference span's records
 * (ADK Python logs its message events on `generate_content`, a child of `call_llm`).
 */
export function logsBySpan(logs: readonly OtlpLogRecord[], byId: ReadonlyMap<string, OtlpSpan>): (span: OtlpSpan) => OtlpLogRecord[] {
  const own = new Map<string, OtlpLogRecord[]>()
  // Ties broken by content, so the order never depends on which batch a record came in.
  const keyed = logs.map((log) => ({ log, key: `${log.eventName}\u0000${JSON.stringify(log.body)}` }))
  keyed.sort((a, b) => a.log.timeMs - b.log.timeMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  for (const { log } of keyed) {
    const list = own.get(log.spanId)
    if (list) list.push(log)
    else own.set(log.spanId, [log])
  }
  const children = new Map<string, string[]>()
  for (const span of byId.values()) {
    if (span.parentSpanId && isInferenceSpan(span)) {
      children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span.spanId])
    }
  }
  return (span) => [...(own.get(span.spanId) ?? []), ...(children.get(span.spanId) ?? []).flatMap((id) => own.get(id) ?? [])]
}

/**
 * The app: ADK's root agent (the workflow root's name, else the first `invoke_agent` under the ADK
 * root), not another service's agent sharing the trace; else the resource's `service.name`.
 */
export function appNameOf(
  root: OtlpSpan | undefined,
  sorted: readonly OtlpSpan[],
  byId: ReadonlyMap<string, OtlpSpan>,
): string | undefined {
  const top = root ?? sorted[0]
  if (root && isAdkRoot(root)) {
    const workflow = root.attributes['gen_ai.workflow.name']
    if (typeof workflow === 'string' && workflow !== '') return workflow
    const agent = sorted.find((s) => s !== root && isUnder(s, root, byId) && /^invoke_agent( |$)/.test(s.name))
    if (agent) return agentNameOf(agent, byId)
  }
  // Before the root arrives: an outer workflow's name, else the first agent's (a nested workflow is neither).
  const outer = sorted.filter((s) => s.attributes['gen_ai.workflow.nested'] !== true && s.attributes['gen_ai.workflow.nested'] !== 'true')
  for (const key of ['gen_ai.workflow.name', 'gen_ai.agent.name']) {
    const value = top?.attributes[key] ?? outer.find((s) => typeof s.attributes[key] === 'string')?.attributes[key]
    if (typeof value === 'string') return value
  }
  const service = top?.resource['service.name']
  return typeof service === 'string' ? service : undefined
}

/** Whether `span` descends from `ancestor`; walks at most as many parents as the trace has spans. */
function isUnder(span: OtlpSpan, ancestor: OtlpSpan, byId: ReadonlyMap<string, OtlpSpan>): boolean {
  let current = span.parentSpanId ? byId.get(span.parentSpanId) : undefined
  for (let steps = 0; current && steps <= byId.size; steps++) {
    if (current === ancestor) return true
    current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined
  }
  return false
}

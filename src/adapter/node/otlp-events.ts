/**
 * An OTLP JSON recording (the Collector's file exporter output) as engine input: its spans grouped
 * into conversations, one conversation chosen, and each trace's ADK events pushed as one invocation,
 * completed where its trace ends. The clock the engine is given reads the trace's own times (root
 * start for its first event, root end after), so invocation_duration_v1 is the root span's
 * duration, as a live OTLP session measures it.
 */
import type { IngestedEvent } from '../../engine/types.ts'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS, type TraceInvocation, tracesToConversations, unscorableMetrics } from '../../otlp/index.ts'

export type OtlpRun = { traces: TraceInvocation[]; warnings: string[] }

/** The conversation to score: the one named, else the only one. */
export function otlpRunFromText(
  text: string,
  name: string,
  conversationId: string | undefined,
  limits: { maxJsonDepth: number; maxStringLength: number },
): OtlpRun | { error: string } {
  const decoded = decodeOtlpFile(text, { ...DEFAULT_OTLP_LIMITS, ...limits })
  const warnings = decoded.issues.map((i) => `${name}: line ${i.line}${i.where ? `, ${i.where}` : ''}: ${i.message}`)
  const conversations = tracesToConversations(decoded.spans, decoded.logs, limits)
  const ids = conversations.map((c) => c.conversationId)
  if (conversations.length === 0) {
    return {
      error: `${name}: the ${decoded.format === 'otlp' ? 'OTLP' : decoded.format === 'jaeger' ? 'Jaeger' : 'Tempo'} export holds no spans${
        decoded.issues[0] ? ` (${decoded.issues[0].where ?? `line ${decoded.issues[0].line}`}: ${decoded.issues[0].message})` : ''
      }`,
    }
  }
  const chosen = conversationId === undefined
    ? (conversations.length === 1 ? conversations[0] : undefined)
    : conversations.find((c) => c.conversationId === conversationId)
  if (!chosen) {
    return {
      error: conversationId === undefined
        ? `${name}: the OTLP export holds ${conversations.length} conversations; choose one with --conversation (${ids.join(', ')})`
        : `${name}: no conversation '${conversationId}' in the OTLP export (conversations: ${ids.join(', ')})`,
    }
  }
  for (const trace of chosen.traces) {
    for (const issue of trace.issues) warnings.push(`${name}: trace ${trace.traceId}: ${issue}`)
    for (const m of trace.missing) {
      warnings.push(`${name}: invocation ${trace.invocationId}: ${m.field.replace('_', ' ')} unknown: ${m.reason}`)
    }
  }
  return { traces: chosen.traces, warnings }
}

/** Per invocation id, the metrics its trace's missing parts rule out (the engine's `unscorable`). */
export function unscorableOf(run: OtlpRun): (invocationId: string) => ReadonlyMap<string, string> | undefined {
  const byId = new Map(run.traces.map((t) => [t.invocationId, unscorableMetrics(t.missing)]))
  return (invocationId) => byId.get(invocationId)
}

/** The engine calls a run needs, in order: per trace its events, then completion. */
export function pushOtlpRun(
  run: OtlpRun,
  setTime: (ms: number) => void,
  engine: { push(item: IngestedEvent): void; completeInvocation(): void },
): void {
  let index = 0
  for (const trace of run.traces) {
    const end = trace.durationMs === undefined ? Number.NaN : trace.startMs + trace.durationMs
    trace.events.forEach((event, i) => {
      setTime(i === 0 ? trace.startMs : end)
      engine.push({ index: index++, event, raw: event })
    })
    setTime(end)
    engine.completeInvocation()
  }
}

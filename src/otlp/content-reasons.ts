/**
 * Why a trace's content is unknown, in words an operator can act on: what was missing (content
 * capture off, `<elided>` log bodies, an attribute over ADK's size cap) and the exact switch of the
 * SDK that sent the trace. The three are different problems with different fixes, so each keeps
 * its own reason.
 */
import type { OtlpSpan } from './model.ts'
import type { Absence } from './span-readers.ts'

/** Which ADK (or other GenAI) SDK emitted a trace, as far as its spans show it. */
export type ContentSdk = 'adk-python' | 'adk-js' | 'adk-go' | 'genai-semconv'

const LANGUAGE_KEY = 'telemetry.sdk.language'

/**
 * ADK Python and JS open `call_llm` spans (and say so with `gen_ai.system=gcp.vertex.agent`); ADK Go
 * opens only `generate_content`; the resource's SDK language separates Python from JS and tells Go.
 */
export function contentSdkOf(sorted: readonly OtlpSpan[]): ContentSdk {
  const language = sorted.map((s) => s.resource[LANGUAGE_KEY]).find((v) => typeof v === 'string')
  if (sorted.some((s) => s.name === 'call_llm')) return language === 'nodejs' || language === 'webjs' ? 'adk-js' : 'adk-python'
  if (language === 'go' || sorted.some((s) => s.scope === 'gcp.vertex.agent')) return 'adk-go'
  return 'genai-semconv'
}

const SWITCHES: Record<ContentSdk, Record<Absence, string>> = {
  'adk-python': {
    off:
      'set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (its default; on Vertex AI Agent Engine, AdkApp(enable_tracing=True), without which AdkApp.set_up forces it off; a RunConfig.telemetry.capture_message_content set per request also decides it unless ADK_TELEMETRY_IGNORE_RUN_CONFIG)',
    elided:
      'set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (on Vertex AI Agent Engine, AdkApp(enable_tracing=True)) for call_llm content, or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental for content on generate_content',
    size: 'no switch lifts the cap; shorter conversations fit',
  },
  'adk-js': {
    off: 'set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (its default)',
    elided: 'set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (its default)',
    size: 'no switch lifts the cap; shorter conversations fit',
  },
  'adk-go': {
    off: 'set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT; ADK Go captures no content by default)',
    elided:
      'set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true for content in these log records, or run the default schema (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN unset) with SPAN_ONLY for content on the spans',
    size: 'no switch lifts the cap (maxContentAttributeBytes); shorter conversations fit',
  },
  'genai-semconv': {
    off: "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or your instrumentation's content switch)",
    elided: "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or your instrumentation's content switch)",
    size: "raise or lift the instrumentation's attribute size limit",
  },
}

const WHAT: Record<Absence, string> = {
  off: 'the agent exported no message content',
  elided: 'the message log records hold "<elided>" instead of content',
  size:
    'a content attribute was left unset for its size (ADK leaves one over 60 KiB unset, since Cloud Trace drops values over 64 KiB) while its siblings were written',
}

/**
 * @example contentReason('off', 'adk-go') // 'the agent exported no message content: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (…)'
 */
export function contentReason(absence: Absence, sdk: ContentSdk): string {
  return `${WHAT[absence]}: ${SWITCHES[sdk][absence]}`
}

/** The reason for ADK Python with content capture off (the most common case). */
export const CONTENT_OFF_REASON = contentReason('off', 'adk-python')

/**
 * The ADK Event JSON that `/run_sse` streams (camelCase, nulls omitted) and that sessions store
 * (snake_case). Both spellings are accepted; the fields evalstream reads are typed and every other
 * field is kept, so a proxied or stored event loses nothing.
 */
import * as z from 'zod'
import { type AdkModel, lazyAdkObject, optionalField } from './casing.ts'
import { Content } from './content.ts'

const nullish = optionalField

/**
 * ADK Python sends `timestamp` in float seconds, ADK for JavaScript in epoch milliseconds.
 * Anything above 1e11 cannot be seconds (that is the year 5138), so it is taken as milliseconds.
 */
export const MILLISECONDS_THRESHOLD = 1e11
/** An ADK timestamp in seconds, whichever unit it came in. */
export function timestampSeconds(raw: number): number {
  return raw > MILLISECONDS_THRESHOLD ? raw / 1000 : raw
}

/** What an event asks the runner to do besides carrying content. */
export type EventActions = {
  skip_summarization?: boolean
  transfer_to_agent?: string
  escalate?: boolean
  state_delta?: Record<string, unknown>
  artifact_delta?: Record<string, unknown>
}
export const EventActions: AdkModel<EventActions> = lazyAdkObject(
  () => ({
    skip_summarization: nullish(z.boolean()),
    transfer_to_agent: nullish(z.string()),
    escalate: nullish(z.boolean()),
    state_delta: nullish(z.record(z.string(), z.unknown())),
    artifact_delta: nullish(z.record(z.string(), z.unknown())),
  }),
  'allow',
)

/** One ADK event, snake_case whatever spelling it came in. */
export type AdkEvent = {
  id?: string
  invocation_id?: string
  author?: string
  content?: Content
  partial?: boolean
  turn_complete?: boolean
  /** A set in Python; JSON has it as an array. */
  long_running_tool_ids?: string[]
  actions?: EventActions
  branch?: string
  /** Seconds since the epoch (milliseconds on input are divided by 1000, see `timestampSeconds`). */
  timestamp?: number
  error_code?: string
  error_message?: string
  finish_reason?: string
  usage_metadata?: Record<string, unknown>
}
export const AdkEvent: AdkModel<AdkEvent> = lazyAdkObject(
  () => ({
    id: nullish(z.string()),
    invocation_id: nullish(z.string()),
    author: nullish(z.string()),
    content: nullish(Content),
    partial: nullish(z.boolean()),
    turn_complete: nullish(z.boolean()),
    // A set in Python; JSON has it as an array.
    long_running_tool_ids: nullish(z.array(z.string())),
    actions: nullish(EventActions),
    branch: nullish(z.string()),
    timestamp: nullish(z.number().transform(timestampSeconds)),
    error_code: nullish(z.string()),
    error_message: nullish(z.string()),
    finish_reason: nullish(z.string()),
    usage_metadata: nullish(z.record(z.string(), z.unknown())),
  }),
  'allow',
)

/**
 * ADK's `Event.is_final_response()` (spec §4.3): skip-summarization and long-running calls count as
 * final; otherwise an event is final when it has no function call or response, is not a partial
 * chunk and does not end in a code execution result.
 */
export function isFinalResponse(event: AdkEvent): boolean {
  if (event.actions?.skip_summarization || (event.long_running_tool_ids?.length ?? 0) > 0) return true
  const parts = event.content?.parts ?? []
  const hasCallOrResponse = parts.some((p) => p.function_call || p.function_response)
  const endsInCodeResult = parts.length > 0 && parts[parts.length - 1]!.code_execution_result != null
  return !hasCallOrResponse && !event.partial && !endsInCodeResult
}

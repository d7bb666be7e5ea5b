/**
 * ADK's Invocation (one user turn and the agent's answer to it) and what hangs off it:
 * intermediate data in its two shapes, rubrics and app details. Field names are ADK's snake_case;
 * camelCase aliases are accepted on input (spec §1.1), unknown keys are rejected as ADK does.
 */
import { z } from 'zod'
import { adkObject, optionalField } from './casing.ts'
import { Content, FunctionCall, FunctionResponse, Part } from './content.ts'

const nullish = optionalField

export const RubricContent = adkObject({ text_property: nullish(z.string()) }, 'forbid')
export const Rubric = adkObject(
  {
    rubric_id: z.string(),
    rubric_content: RubricContent,
    description: nullish(z.string()),
    type: nullish(z.string()),
  },
  'forbid',
)
export type Rubric = z.infer<typeof Rubric>

/** Hand-written and migrated files: calls, responses and `[author, parts]` pairs. */
export const IntermediateData = adkObject(
  {
    tool_uses: z.array(FunctionCall).nullish().transform((v) => v ?? []),
    tool_responses: z.array(FunctionResponse).nullish().transform((v) => v ?? []),
    intermediate_responses: z
      .array(z.tuple([z.string(), z.array(Part)]))
      .nullish()
      .transform((v) => v ?? []),
  },
  'forbid',
)
export type IntermediateData = z.infer<typeof IntermediateData>

export const InvocationEvent = adkObject(
  { author: z.string(), content: Content.nullish().transform((v) => v ?? null) },
  'forbid',
)
export type InvocationEvent = z.infer<typeof InvocationEvent>

/** What inference produces and the web UI saves: the agent's events, in order. */
export const InvocationEvents = adkObject({ invocation_events: z.array(InvocationEvent).default([]) }, 'forbid')
export type InvocationEvents = z.infer<typeof InvocationEvents>

/**
 * `IntermediateData | InvocationEvents`. pydantic ends up choosing by the keys present (both shapes
 * forbid extra keys), so evalstream chooses the same way up front: an object with
 * `invocation_events` is InvocationEvents, anything else IntermediateData (`{}` included). Unlike
 * z.union, this reports a bad file's errors inside the shape its author meant.
 */
export const IntermediateDataOrEvents = z.unknown().transform((value, ctx): IntermediateData | InvocationEvents => {
  const isEvents = typeof value === 'object' && value !== null && ('invocation_events' in value || 'invocationEvents' in value)
  const parsed = isEvents
    ? InvocationEvents.safeParse(value, { reportInput: true })
    : IntermediateData.safeParse(value, { reportInput: true })
  if (parsed.success) return parsed.data
  // Issue paths are relative to this value; zod prefixes them with where it sits in the document.
  for (const issue of parsed.error.issues) ctx.issues.push(issue as (typeof ctx.issues)[number])
  return z.NEVER
})

export const AgentDetails = adkObject(
  {
    name: z.string(),
    instructions: z.string().default(''),
    tool_declarations: z.array(z.unknown()).default([]),
  },
  'forbid',
)
export const AppDetails = adkObject({ agent_details: z.record(z.string(), AgentDetails).default({}) }, 'forbid')
export type AppDetails = z.infer<typeof AppDetails>

export const Invocation = adkObject(
  {
    invocation_id: z.string().default(''),
    user_content: Content,
    final_response: nullish(Content),
    intermediate_data: nullish(IntermediateDataOrEvents),
    creation_timestamp: z.coerce.number().default(0),
    rubrics: nullish(z.array(Rubric)),
    app_details: nullish(AppDetails),
  },
  'forbid',
)
export type Invocation = z.infer<typeof Invocation>

/** Every part of every invocation event, in order (sub-agents included). */
function* eventParts(events: readonly InvocationEvent[]): Generator<Part> {
  for (const event of events) yield* event.content?.parts ?? []
}

/** Calls of invocation-events data, as counted by whoever built it (see `rememberToolCalls`). */
const knownToolCalls = new WeakMap<InvocationEvents, () => readonly FunctionCall[]>()

/**
 * Hands over the calls of `data.invocation_events` (exactly those, in order) counted while the
 * events were folded in, so `toolCallsOf` does not walk every event again. A live invocation is
 * scored each time a final response completes it; walking all its events each time made one long
 * invocation cost quadratic time. `undefined` forgets them (the events were replaced).
 * @example rememberToolCalls(data, () => calls.slice(0, count))
 */
export function rememberToolCalls(data: InvocationEvents, calls: (() => readonly FunctionCall[]) | undefined): void {
  if (calls) knownToolCalls.set(data, calls)
  else knownToolCalls.delete(data)
}

/**
 * ADK's get_all_tool_calls: from either intermediate-data shape, in order, sub-agents included.
 * Read-only: the list may be the invocation's own (see rememberToolCalls).
 */
export function toolCallsOf(invocation: Pick<Invocation, 'intermediate_data'>): readonly FunctionCall[] {
  const data = invocation.intermediate_data
  if (!data) return []
  if (!('invocation_events' in data)) return data.tool_uses
  const known = knownToolCalls.get(data)
  if (known) return known()
  return [...eventParts(data.invocation_events)].flatMap((part) => (part.function_call ? [part.function_call] : []))
}

/** ADK's get_all_tool_responses, likewise. */
export function toolResponsesOf(invocation: Pick<Invocation, 'intermediate_data'>): FunctionResponse[] {
  const data = invocation.intermediate_data
  if (!data) return []
  if (!('invocation_events' in data)) return data.tool_responses
  return [...eventParts(data.invocation_events)].flatMap((part) => (part.function_response ? [part.function_response] : []))
}

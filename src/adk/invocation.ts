/**
 * ADK's Invocation (one user turn and the agent's answer to it) and what hangs off it:
 * intermediate data in its two shapes, rubrics and app details. Field names are ADK's snake_case;
 * camelCase aliases are accepted on input (spec §1.1), unknown keys are rejected as ADK does.
 */
import * as z from 'zod'
import { lazySchema } from './lazy-schema.ts'
import { type AdkModel, lazyAdkObject, optionalField } from './casing.ts'
import { Content, FunctionCall, FunctionResponse, Part } from './content.ts'

const nullish = optionalField

/** What a rubric asks, in words. */
export type RubricContent = {
  text_property?: string
}
export const RubricContent: AdkModel<RubricContent> = lazyAdkObject(() => ({ text_property: nullish(z.string()) }), 'forbid')

/** One property a judge checks an answer against. */
export type Rubric = {
  rubric_id: string
  rubric_content: RubricContent
  description?: string
  type?: string
}
export const Rubric: AdkModel<Rubric> = lazyAdkObject(
  () => ({
    rubric_id: z.string(),
    rubric_content: RubricContent,
    description: nullish(z.string()),
    type: nullish(z.string()),
  }),
  'forbid',
)

/** Hand-written and migrated files: calls, responses and `[author, parts]` pairs. */
export type IntermediateData = {
  tool_uses: FunctionCall[]
  tool_responses: FunctionResponse[]
  intermediate_responses: [string, Part[]][]
}
export const IntermediateData: AdkModel<IntermediateData> = lazyAdkObject(
  () => ({
    tool_uses: z.array(FunctionCall).nullish().transform((v) => v ?? []),
    tool_responses: z.array(FunctionResponse).nullish().transform((v) => v ?? []),
    intermediate_responses: z
      .array(z.tuple([z.string(), z.array(Part)]))
      .nullish()
      .transform((v) => v ?? []),
  }),
  'forbid',
)

/** One event of an invocation as eval files keep it: its author and content (null when it had none). */
export type InvocationEvent = {
  author: string
  content: Content | null
}
export const InvocationEvent: AdkModel<InvocationEvent> = lazyAdkObject(
  () => ({ author: z.string(), content: Content.nullish().transform((v) => v ?? null) }),
  'forbid',
)

/** What inference produces and the web UI saves: the agent's events, in order. */
export type InvocationEvents = {
  invocation_events: InvocationEvent[]
}
export const InvocationEvents: AdkModel<InvocationEvents> = lazyAdkObject(
  () => ({ invocation_events: z.array(InvocationEvent).default([]) }),
  'forbid',
)

/**
 * `IntermediateData | InvocationEvents`. pydantic ends up choosing by the keys present (both shapes
 * forbid extra keys), so evalstream chooses the same way up front: an object with
 * `invocation_events` is InvocationEvents, anything else IntermediateData (`{}` included). Unlike
 * z.union, this reports a bad file's errors inside the shape its author meant.
 */
export const IntermediateDataOrEvents: z.ZodType<IntermediateData | InvocationEvents> = lazySchema(() =>
  z.unknown().transform(
    (value, ctx): IntermediateData | InvocationEvents => {
      const isEvents = typeof value === 'object' && value !== null && ('invocation_events' in value || 'invocationEvents' in value)
      const parsed = isEvents
        ? InvocationEvents.safeParse(value, { reportInput: true })
        : IntermediateData.safeParse(value, { reportInput: true })
      if (parsed.success) return parsed.data
      // Issue paths are relative to this value; zod prefixes them with where it sits in the document.
      for (const issue of parsed.error.issues) ctx.issues.push(issue as (typeof ctx.issues)[number])
      return z.NEVER
    },
  )
)

/** An agent of the app: its name, instructions and tool declarations. */
export type AgentDetails = {
  name: string
  instructions: string
  tool_declarations: unknown[]
}
export const AgentDetails: AdkModel<AgentDetails> = lazyAdkObject(
  () => ({
    name: z.string(),
    instructions: z.string().default(''),
    tool_declarations: z.array(z.unknown()).default([]),
  }),
  'forbid',
)
/** The app's agents, by name. */
export type AppDetails = {
  agent_details: Record<string, AgentDetails>
}
export const AppDetails: AdkModel<AppDetails> = lazyAdkObject(
  () => ({ agent_details: z.record(z.string(), AgentDetails).default({}) }),
  'forbid',
)

/** One user turn and the agent's answer to it. */
export type Invocation = {
  invocation_id: string
  user_content: Content
  final_response?: Content
  intermediate_data?: IntermediateData | InvocationEvents
  creation_timestamp: number
  rubrics?: Rubric[]
  app_details?: AppDetails
}
export const Invocation: AdkModel<Invocation> = lazyAdkObject(
  () => ({
    invocation_id: z.string().default(''),
    user_content: Content,
    final_response: nullish(Content),
    intermediate_data: nullish(IntermediateDataOrEvents),
    creation_timestamp: z.coerce.number().default(0),
    rubrics: nullish(z.array(Rubric)),
    app_details: nullish(AppDetails),
  }),
  'forbid',
)

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

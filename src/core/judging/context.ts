/**
 * What the judge prompts show about an invocation, built from ADK's Invocation the way ADK feeds
 * its judges (spec §2.3-§2.5): user text, final text, the answering agent's instructions, tool
 * declarations, and the tool calls paired with their responses.
 */
import { contentText, type FunctionCall, type FunctionResponse } from '../../adk/content.ts'
import { type Invocation, type InvocationEvent, toolCallsOf, toolResponsesOf } from '../../adk/invocation.ts'

export const NO_TOOLS = 'Agent has no tools.'
export const NO_STEPS = 'No intermediate steps were taken.'

/** The invocation's events, when its intermediate data has that shape (else none). */
export function invocationEventsOf(invocation: Invocation): InvocationEvent[] {
  const data = invocation.intermediate_data
  return data && 'invocation_events' in data ? data.invocation_events : []
}

/**
 * The texts of the intermediate responses, in order (either intermediate-data shape).
 * @example intermediateTexts(invocation) // ['Let me check.', 'Found it.']
 */
function intermediateTexts(invocation: Invocation): string[] {
  const data = invocation.intermediate_data
  if (!data) return []
  const texts = 'invocation_events' in data
    ? data.invocation_events.map((e) => contentText(e.content))
    : data.intermediate_responses.map(([, parts]) => contentText({ role: undefined, parts }))
  return texts.filter((t) => t !== '')
}

/**
 * The agent's answer; with `includeIntermediate` (ADK v2.0's include_intermediate_responses_in_final)
 * every intermediate text first, then the final text, joined with "\n".
 */
export function responseText(invocation: Invocation, includeIntermediate: boolean): string {
  const final = contentText(invocation.final_response)
  if (!includeIntermediate) return final
  return [...intermediateTexts(invocation), final].filter((t) => t !== '').join('\n')
}

/**
 * The instructions of the agent that authored the first event; with a single agent in
 * app_details (no events to tell), that agent's.
 */
export function developerInstructions(invocation: Invocation): string {
  const agents = invocation.app_details?.agent_details ?? {}
  const author = invocationEventsOf(invocation)[0]?.author
  if (author !== undefined) return agents[author]?.instructions ?? ''
  const all = Object.values(agents)
  return all.length === 1 ? (all[0]?.instructions ?? '') : ''
}

/**
 * Tool declarations of every agent, as pretty JSON keyed by agent name, or "Agent has no tools.".
 * @example toolDeclarationsText(invocationWithoutAppDetails) // 'Agent has no tools.'
 */
export function toolDeclarationsText(invocation: Invocation): string {
  const declared: Record<string, unknown[]> = {}
  for (const [name, agent] of Object.entries(invocation.app_details?.agent_details ?? {})) {
    if (agent.tool_declarations.length > 0) declared[name] = agent.tool_declarations
  }
  return Object.keys(declared).length > 0 ? JSON.stringify(declared, null, 2) : NO_TOOLS
}

/** A call or response without absent fields (ADK dumps them with exclude_none). */
function compact(value: FunctionCall | FunctionResponse): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>
}

/**
 * The tool calls, each with the response of the same id ("None" when there is none), as JSON;
 * or "No intermediate steps were taken.".
 */
export function toolStepsText(invocation: Invocation): string {
  const calls = toolCallsOf(invocation)
  if (calls.length === 0) return NO_STEPS
  const responses = toolResponsesOf(invocation)
  const steps = calls.map((call, i) => {
    const response = call.id === undefined ? undefined : responses.find((r) => r.id === call.id)
    return { step: i + 1, tool_call: compact(call), tool_response: response ? compact(response) : 'None' }
  })
  return JSON.stringify({ tool_calls_and_response: steps }, null, 2)
}

/**
 * The context a hallucination validator checks sentences against (spec §2.6): developer
 * instructions of every agent, the user prompt, the tool definitions, then what the agent said and
 * did before the checked text.
 */
export function hallucinationContext(invocation: Invocation, priorEvents: readonly InvocationEvent[]): string {
  const lines: string[] = []
  const instructions = Object.entries(invocation.app_details?.agent_details ?? {})
    .filter(([, agent]) => agent.instructions !== '')
    .map(([name, agent]) => `${name}:\n${agent.instructions}`)
  if (instructions.length > 0) lines.push(`Developer instructions:\n${instructions.join('\n\n')}`)
  lines.push(`User prompt:\n${contentText(invocation.user_content)}`)
  lines.push(`Tool definitions:\n${toolDeclarationsText(invocation)}`)
  for (const event of priorEvents) {
    const parts = event.content?.parts ?? []
    for (const part of parts) if (part.text) lines.push(part.text)
    const calls = parts.flatMap((p) => (p.function_call ? [compact(p.function_call)] : []))
    if (calls.length > 0) lines.push(`tool_calls:\n${JSON.stringify(calls, null, 2)}`)
    const outputs = parts.flatMap((p) => (p.function_response ? [compact(p.function_response)] : []))
    if (outputs.length > 0) lines.push(`tool_outputs:\n${JSON.stringify(outputs, null, 2)}`)
  }
  return lines.join('\n')
}

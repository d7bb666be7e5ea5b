/**
 * What the multi-turn trajectory judge sees of a conversation, built as ADK builds it (spec §1.4):
 * each agent's instructions (`Agent {id} Instructions:`), each agent's tools (`Agent: {id}` then
 * `- name: description`), both deduplicated in order over every invocation's app details, and the
 * dialogue as numbered lines: `USER TURN k`, every event's texts, tool calls and tool outputs
 * (`USER` or `AGENT (author)`), then the final response.
 */
import { contentText } from '../../../adk/content.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import { invocationEventsOf } from '../../judging/context.ts'

/** `Agent {id} Instructions:\n{instructions}` per agent with instructions, first declaration wins. */
export function instructionsText(invocations: readonly Invocation[]): string {
  const blocks: string[] = []
  const seen = new Set<string>()
  for (const invocation of invocations) {
    for (const [id, agent] of Object.entries(invocation.app_details?.agent_details ?? {})) {
      const block = `Agent ${id} Instructions:\n${agent.instructions}`
      if (agent.instructions === '' || seen.has(block)) continue
      seen.add(block)
      blocks.push(block)
    }
  }
  return blocks.join('\n\n')
}

type Declaration = { name?: unknown; description?: unknown }

/** The function declarations of a tool list entry: a Tool with function_declarations, or a declaration itself. */
function declarationsOf(tool: unknown): Declaration[] {
  const t = tool as { function_declarations?: unknown; functionDeclarations?: unknown; name?: unknown } | null
  const list = t?.function_declarations ?? t?.functionDeclarations
  if (Array.isArray(list)) return list as Declaration[]
  return typeof t?.name === 'string' ? [t as Declaration] : []
}

/** `Agent: {id}` then `- {name}: {description}` per tool, agents and lines deduplicated in order. */
export function toolsText(invocations: readonly Invocation[]): string {
  const byAgent = new Map<string, string[]>()
  for (const invocation of invocations) {
    for (const [id, agent] of Object.entries(invocation.app_details?.agent_details ?? {})) {
      const lines = byAgent.get(id) ?? []
      for (const d of agent.tool_declarations.flatMap(declarationsOf)) {
        const line = `- ${String(d.name)}: ${typeof d.description === 'string' ? d.description : ''}`
        if (!lines.includes(line)) lines.push(line)
      }
      byAgent.set(id, lines)
    }
  }
  return [...byAgent]
    .filter(([, lines]) => lines.length > 0)
    .map(([id, lines]) => `Agent: ${id}\n${lines.join('\n')}`)
    .join('\n\n')
}

function speaker(author: string | undefined): string {
  return author === 'user' ? 'USER' : `AGENT (${author ?? 'agent'})`
}

/**
 * The dialogue, one numbered line per text, tool call and tool output.
 * @example conversationText([invocation]) // 'USER TURN 1: Weather in Paris?\nAGENT (weather) TURN 1 (tool call): get_weather({"city":"Paris"})\n...'
 */
export function conversationText(invocations: readonly Invocation[]): string {
  const lines: string[] = []
  invocations.forEach((invocation, i) => {
    const k = i + 1
    lines.push(`USER TURN ${k}: ${contentText(invocation.user_content)}`)
    const events = invocationEventsOf(invocation)
    for (const event of events) {
      const who = speaker(event.author)
      for (const part of event.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.text !== '') lines.push(`${who} TURN ${k}: ${part.text}`)
        if (part.function_call) {
          lines.push(`${who} TURN ${k} (tool call): ${part.function_call.name}(${JSON.stringify(part.function_call.args ?? {})})`)
        }
        if (part.function_response) {
          lines.push(
            `${who} TURN ${k} (tool output): ${part.function_response.name} -> ${JSON.stringify(part.function_response.response ?? {})}`,
          )
        }
      }
    }
    const final = contentText(invocation.final_response)
    if (final !== '') lines.push(`AGENT (${events[0]?.author ?? 'agent'}) TURN ${k}: ${final}`)
  })
  return lines.join('\n')
}

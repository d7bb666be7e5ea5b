/**
 * What every conversation-level metric shares (ADK's multi-turn metrics, spec §1.3, §1.4): turns
 * before the last carry no score (NOT_EVALUATED); the verdict is made once the conversation ends
 * and carried by the last turn; the case's score, status and rubric scores are the last turn's.
 */
import { statusFor } from '../../adk/status.ts'
import type { Invocation } from '../../adk/invocation.ts'
import type { ConversationRecord, InvocationScore, Outcome, OverallScore } from '../criterion.ts'
import { invocationEventsOf } from './context.ts'

/** Why a turn carries no score of its own. */
export const WAITS_FOR_END = 'judged over the whole conversation once it ends; the verdict is carried by the last turn'

/** A turn's own outcome: NOT_EVALUATED until the conversation's closing step judges it. */
export function waitForEnd(): Outcome {
  return { kind: 'score', result: { score: null, status: 'NOT_EVALUATED', reason: WAITS_FOR_END } }
}

/** The case result is the last turn's: its score, status (`>=` threshold) and rubric scores. */
export function lastTurnAggregate(scores: InvocationScore[], config: { threshold: number }): OverallScore {
  const last = scores.at(-1)
  if (!last) return { score: null, status: 'NOT_EVALUATED', reason: 'there were no turns to score' }
  const rubricScores = last.details?.rubric_scores
  const details = rubricScores ? { details: { overall_rubric_scores: rubricScores } } : {}
  if (last.score === null) return { score: null, status: 'NOT_EVALUATED', reason: last.reason ?? WAITS_FOR_END, ...details }
  return { score: last.score, status: statusFor(last.score, config.threshold), ...details }
}

/**
 * The conversation as judge services read it (ADK's AgentData): agents from every invocation's app
 * details (the first declaration of an agent wins), one turn per invocation with its events that
 * have content and its final response.
 */
export function conversationRecord(invocations: readonly Invocation[]): ConversationRecord {
  const agents: ConversationRecord['agents'] = {}
  for (const invocation of invocations) {
    for (const [name, agent] of Object.entries(invocation.app_details?.agent_details ?? {})) {
      agents[name] ??= { instruction: agent.instructions, tool_declarations: agent.tool_declarations }
    }
  }
  const turns = invocations.map((invocation) => ({
    turn_id: invocation.invocation_id,
    user: invocation.user_content,
    events: invocationEventsOf(invocation).flatMap((e) => (e.content ? [{ author: e.author ?? 'agent', content: e.content }] : [])),
    ...(invocation.final_response ? { final: invocation.final_response } : {}),
  }))
  return { agents, turns }
}

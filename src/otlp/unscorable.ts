/**
 * Which ADK metrics cannot be scored when a part of an invocation is unknown (content capture off):
 * each metric against the invocation fields it reads, so a host can report those metrics
 * NOT_EVALUATED with the reason instead of scoring an empty text as a wrong answer. Metrics that
 * read only names, counts and times (tool_call_count_v1, inference_call_count_v1,
 * invocation_duration_v1) are never listed.
 */
import type { Missing, MissingField } from './trace-to-events.ts'

/** The invocation fields each metric reads (ADK's evaluators and evalstream's criteria). */
const READS: Readonly<Record<string, readonly MissingField[]>> = {
  tool_trajectory_avg_score: ['tool_arguments'],
  response_match_score: ['final_response'],
  response_evaluation_score: ['user_content', 'final_response'],
  final_response_match_v2: ['user_content', 'final_response'],
  rubric_based_final_response_quality_v1: ['user_content', 'final_response'],
  rubric_based_tool_use_quality_v1: ['user_content', 'tool_arguments', 'tool_responses'],
  hallucinations_v1: ['user_content', 'final_response', 'tool_responses'],
  safety_v1: ['user_content', 'final_response'],
  per_turn_user_simulator_quality_v1: ['user_content'],
  token_usage_v1: ['token_usage'],
}

/**
 * Metric name -> why it cannot be scored on this invocation (the first missing field it reads).
 * @example unscorableMetrics([{ field: 'final_response', reason: 'content off' }]).get('response_match_score') // 'final response unknown: content off'
 */
export function unscorableMetrics(missing: readonly Missing[], metrics: readonly string[] = Object.keys(READS)): Map<string, string> {
  const out = new Map<string, string>()
  for (const metric of metrics) {
    const found = missing.find((m) => READS[metric]?.includes(m.field))
    if (found) out.set(metric, `${found.field.replace('_', ' ')} unknown: ${found.reason}`)
  }
  return out
}

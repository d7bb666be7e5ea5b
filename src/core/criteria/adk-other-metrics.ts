/**
 * ADK metric names evalstream accepts in a config without implementing them (ADK's PrebuiltMetrics
 * and its criteria docs). Each is reported NOT_EVALUATED with the reason below, never refused as an
 * unknown name: a config written for `adk eval` loads unchanged, and the case status skips them as
 * ADK skips a NOT_EVALUATED metric. (per_turn_user_simulator_quality_v1 is a criterion of its own.)
 */

const VERTEX_CONVERSATION =
  "ADK delegates it to Vertex AI's Gen AI evaluation service, which scores the whole conversation on its last invocation; evalstream does not call that service and has no judge prompt with the same scale"

/** Why each accepted-but-unimplemented ADK metric is NOT_EVALUATED, by name. */
export const ADK_METRICS_NOT_IMPLEMENTED: ReadonlyMap<string, string> = new Map([
  [
    'response_evaluation_score',
    "ADK scores it with Vertex AI's Gen AI evaluation service (the prebuilt COHERENCE metric, a 1-5 scale); evalstream does not call that service and a Gemini judge would not give Vertex's scores",
  ],
  ['multi_turn_task_success_v1', VERTEX_CONVERSATION],
  ['multi_turn_trajectory_quality_v1', VERTEX_CONVERSATION],
  ['multi_turn_tool_use_quality_v1', VERTEX_CONVERSATION],
])

/**
 * The reason an ADK metric name is accepted but not evaluated, or undefined for any other name.
 * @example notImplementedReason('response_evaluation_score') // "ADK scores it with Vertex AI's ..."
 */
export function notImplementedReason(metricName: string): string | undefined {
  const reason = ADK_METRICS_NOT_IMPLEMENTED.get(metricName)
  return reason === undefined ? undefined : `${metricName} is not implemented by evalstream: ${reason}`
}

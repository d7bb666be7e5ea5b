/**
 * `metrics-info`: ADK's `MetricInfo` list, which the Eval tab's run dialog shows (name,
 * description, a threshold slider over the score's interval), built from the criterion catalogue
 * (src/core/registry.ts): the metrics offered are exactly the ones evalstream scores.
 */
import { criteriaCatalogue } from '../../core/registry.ts'

export type MetricInfo = {
  metric_name: string
  description: string
  metric_value_info: { interval: { min_value: number; max_value: number; open_at_min: boolean; open_at_max: boolean } }
}

/**
 * Every catalogued criterion scores in [0, 1], as ADK's own evaluators declare theirs.
 * @example metricsInfo()[0].metric_name // 'tool_trajectory_avg_score'
 */
export function metricsInfo(): MetricInfo[] {
  return criteriaCatalogue().map((entry) => ({
    metric_name: entry.name,
    description: entry.description,
    metric_value_info: { interval: { min_value: 0, max_value: 1, open_at_min: false, open_at_max: false } },
  }))
}

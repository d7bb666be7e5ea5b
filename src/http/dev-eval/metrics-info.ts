/**
 * `metrics-info`: ADK's `MetricInfo` list, which the Eval tab's run dialog shows (name,
 * description, a threshold slider over the score's interval), built from the criterion catalogue
 * (src/core/registry.ts): all 17 names of ADK's metric registry, exactly the ones evalstream scores.
 * As in ADK, the informational metrics (always reported, no threshold) have a `metric_value_info`
 * without an interval, so the dialog offers no threshold for them.
 */
import { criteriaCatalogue } from '../../core/registry.ts'

export type Interval = { min_value: number; max_value: number; open_at_min: boolean; open_at_max: boolean }

export type MetricInfo = {
  metric_name: string
  description: string
  metric_value_info: { interval?: Interval }
}

/**
 * @example metricsInfo()[0].metric_name // 'tool_trajectory_avg_score'
 */
export function metricsInfo(): MetricInfo[] {
  return criteriaCatalogue().map((entry) => ({
    metric_name: entry.name,
    description: entry.description,
    metric_value_info: entry.interval ? { interval: { ...entry.interval, open_at_min: false, open_at_max: false } } : {},
  }))
}

/**
 * `metrics-info`: ADK's `MetricInfo` list, which the Eval tab's run dialog shows (name,
 * description, a threshold slider over the score's interval), built from the criterion catalogue
 * (src/core/registry.ts): the 13 metrics of ADK's registry that take a threshold.
 * The four informational metrics (always reported, no threshold) are left out: ADK's own metric
 * info gives them no interval, and the run dialog of the ADK web UI that ships with ADK for
 * JavaScript reads `metricValueInfo.interval.minValue` of every entry, so one such entry leaves
 * the dialog unopened. Nothing is lost: they are reported on every run whether chosen or not.
 */
import { criteriaCatalogue } from '../../core/registry.ts'

export type Interval = { min_value: number; max_value: number; open_at_min: boolean; open_at_max: boolean }

export type MetricInfo = {
  metric_name: string
  description: string
  metric_value_info: { interval: Interval }
}

/**
 * @example metricsInfo()[0].metric_name // 'tool_trajectory_avg_score'
 */
export function metricsInfo(): MetricInfo[] {
  const info: MetricInfo[] = []
  for (const entry of criteriaCatalogue()) {
    if (!entry.interval) continue
    info.push({
      metric_name: entry.name,
      description: entry.description,
      metric_value_info: { interval: { ...entry.interval, open_at_min: false, open_at_max: false } },
    })
  }
  return info
}

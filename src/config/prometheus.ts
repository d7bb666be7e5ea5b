/** The Prometheus counters (src/monitor/prometheus.ts) a Node or Deno host serves at GET /metrics. */
import { createPrometheusMetrics, type PrometheusMetrics } from '../monitor/prometheus.ts'
import type { Env, Read } from './env.ts'

/**
 * The host's metrics, for hosts that serve /metrics (Node and Deno; on Workers each Durable Object
 * would count only itself, so none is built there). EVALSTREAM_METRICS_TOKEN is one bearer token
 * with no whitespace.
 * @example const m = prometheusMetricsFromEnv({ EVALSTREAM_METRICS_TOKEN: 's3cret' }); if (m.ok) m.value.token // 's3cret'
 */
export function prometheusMetricsFromEnv(env: Env): Read<PrometheusMetrics> {
  const token = env.EVALSTREAM_METRICS_TOKEN?.trim()
  if (token && /\s/.test(token)) return { ok: false, error: 'EVALSTREAM_METRICS_TOKEN must be one token without whitespace' }
  return { ok: true, value: createPrometheusMetrics(token ? { token } : {}) }
}

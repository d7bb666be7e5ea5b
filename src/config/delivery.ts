/**
 * The delivery settings both exporters share (OpenTelemetry and webhooks): how many sends may wait,
 * how long one may take, how many attempts one gets. One reader, so both follow the same rule
 * (src/config/env.ts) and name their own variables.
 */
import { MAX_TIMER_MS } from '../ingest/timer-ms.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

export type DeliverySettings = { maxQueue: number; timeoutMs: number; maxAttempts: number }

/**
 * @example
 * deliverySettingsFromEnv(env, { maxQueue: 'Q', timeoutMs: 'T', maxAttempts: 'A' }, { maxQueue: 10, timeoutMs: 1000, maxAttempts: 3 })
 */
export function deliverySettingsFromEnv(
  env: Env,
  variables: Readonly<Record<keyof DeliverySettings, string>>,
  defaults: Readonly<DeliverySettings>,
): Read<DeliverySettings> {
  // The send timeout feeds a timer: past 2^31-1 ms it would fire at once.
  return wholeNumbersFromEnv(env, variables, defaults, { timeoutMs: { max: MAX_TIMER_MS } })
}

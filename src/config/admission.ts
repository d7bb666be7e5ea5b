/**
 * When the Node server refuses new sessions (src/http/admission.ts): while its event loop is both
 * - later than EVALSTREAM_ADMISSION_LAG_MS (ms: the p99 delay over the last second, or the turn in
 *   progress), and
 * - busy at least EVALSTREAM_ADMISSION_BUSY_PERCENT of the last second with its own work.
 */
import type { AdmissionLimits } from '../http/admission.ts'
import { type Env, type Read, wholeNumber } from './env.ts'

/** Default delay: a loop this far behind already delays every admitted session's verdicts. */
export const DEFAULT_ADMISSION_LAG_MS = 250
/**
 * Default busy share (%): a loop idle more than a tenth of the time is keeping up with its own work,
 * and its delay comes from other processes holding the cores.
 */
export const DEFAULT_ADMISSION_BUSY_PERCENT = 90

/**
 * @example admissionLimitsFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '100' }) // { ok: true, value: { lagMs: 100, busyShare: 0.9 } }
 */
export function admissionLimitsFromEnv(env: Env): Read<AdmissionLimits> {
  const lag = wholeNumber(env, 'EVALSTREAM_ADMISSION_LAG_MS', DEFAULT_ADMISSION_LAG_MS)
  if (!lag.ok) return lag
  const busy = wholeNumber(env, 'EVALSTREAM_ADMISSION_BUSY_PERCENT', DEFAULT_ADMISSION_BUSY_PERCENT, { min: 1, max: 100 })
  if (!busy.ok) return busy
  return { ok: true, value: { lagMs: lag.value, busyShare: busy.value / 100 } }
}

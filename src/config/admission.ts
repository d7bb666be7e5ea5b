/**
 * EVALSTREAM_ADMISSION_LAG_MS: the event-loop delay (p99 over the last second, in ms) above which
 * the Node server answers new sessions 503 with Retry-After (src/http/admission.ts).
 */
import { type Env, type Read, wholeNumber } from './env.ts'

/** Default budget: a loop this far behind already delays every admitted session's verdicts. */
export const DEFAULT_ADMISSION_LAG_MS = 250

/**
 * @example admissionLagFromEnv({ EVALSTREAM_ADMISSION_LAG_MS: '100' }) // { ok: true, value: 100 }
 */
export function admissionLagFromEnv(env: Env): Read<number> {
  return wholeNumber(env, 'EVALSTREAM_ADMISSION_LAG_MS', DEFAULT_ADMISSION_LAG_MS)
}

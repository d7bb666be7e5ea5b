/** What a client may send, from the EVALSTREAM_MAX_* variables (defaults in src/ingest/limits.ts). */
import { DEFAULT_LIMITS, LIMIT_CEILING, LIMIT_ENV, type Limits } from '../ingest/limits.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

/**
 * Unset or empty variables keep their default; a value that is not a whole number >= 1 (or above
 * its ceiling) is a configuration error, never silently ignored.
 * @example limitsFromEnv({ EVALSTREAM_MAX_JSON_DEPTH: '32' }) // { ok: true, value: { ...DEFAULT_LIMITS, maxJsonDepth: 32 } }
 */
export function limitsFromEnv(env: Env): Read<Limits> {
  const ranges = Object.fromEntries(Object.entries(LIMIT_CEILING).map(([key, max]) => [key, { max }]))
  return wholeNumbersFromEnv(env, LIMIT_ENV, DEFAULT_LIMITS, ranges)
}

/**
 * The session lifecycle's limits from the environment: idle TTL, session cap, ended retention and
 * how long a gone session is remembered (for its 410).
 */
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../session/store.ts'

/** The variable behind each session limit; each is a whole number (ms, or a count). */
export const SESSION_LIMIT_VARS: Record<keyof SessionLimits, string> = {
  idleTtlMs: 'EVALSTREAM_SESSION_IDLE_TTL_MS',
  maxSessions: 'EVALSTREAM_MAX_SESSIONS',
  maxSessionsPerTenant: 'EVALSTREAM_MAX_SESSIONS_PER_TENANT',
  endedRetentionMs: 'EVALSTREAM_ENDED_RETENTION_MS',
  goneNoticeMs: 'EVALSTREAM_GONE_NOTICE_MS',
}

/**
 * Unset or empty variables keep their default; anything but a whole number >= 1 is an error.
 * @example
 * sessionLimitsFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }) // { ok: true, value: { maxSessions: 500, ... } }
 */
export function sessionLimitsFromEnv(env: Env): Read<SessionLimits> {
  return wholeNumbersFromEnv(env, SESSION_LIMIT_VARS, DEFAULT_SESSION_LIMITS)
}

/**
 * The session lifecycle's limits from the environment: idle TTL, session cap, ended retention,
 * how long a gone session is remembered (for its 410), and the byte budgets per session and per
 * process (whose default the host derives from its heap limit: `defaults`).
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
  maxSessionBytes: 'EVALSTREAM_MAX_SESSION_BYTES',
  maxProcessBytes: 'EVALSTREAM_MAX_PROCESS_BYTES',
}

/**
 * Unset or empty variables keep their default; anything but a whole number >= 1 is an error.
 * @example
 * sessionLimitsFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }) // { ok: true, value: { maxSessions: 500, ... } }
 */
export function sessionLimitsFromEnv(env: Env, defaults: SessionLimits = DEFAULT_SESSION_LIMITS): Read<SessionLimits> {
  return wholeNumbersFromEnv(env, SESSION_LIMIT_VARS, defaults)
}

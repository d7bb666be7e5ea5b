/**
 * Builds the app's dependencies from environment variables, the same way on every runtime. The
 * adapters pass in what only they can do: reading a file, the env record, the session store.
 */
import { createSessionEngine } from '../engine/session-engine.ts'
import type { JudgeCache } from '../judge/cache.ts'
import type { AppDeps } from './deps.ts'
import { judgeWiringFromEnv } from './judge-wiring.ts'
import type { EngineFactory } from './session.ts'
import { DEFAULT_SESSION_LIMITS, type SessionLimits, type SessionStore } from './session-store.ts'

export type Env = Record<string, string | undefined>

export type Setup = { ok: true; deps: AppDeps; notes: string[]; limits: SessionLimits } | { ok: false; error: string }

/** A store, or how to build one from the session limits the environment sets. */
export type StoreSource = SessionStore | ((limits: SessionLimits) => SessionStore)

/** The variable behind each session limit; each is a whole number (ms, or a count). */
export const SESSION_LIMIT_VARS: Record<keyof SessionLimits, string> = {
  idleTtlMs: 'EVALSTREAM_SESSION_IDLE_TTL_MS',
  maxSessions: 'EVALSTREAM_MAX_SESSIONS',
  endedRetentionMs: 'EVALSTREAM_ENDED_RETENTION_MS',
  goneNoticeMs: 'EVALSTREAM_GONE_NOTICE_MS',
}

/**
 * @example
 * sessionLimitsFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }) // { ok: true, value: { maxSessions: 500, ... } }
 */
export function sessionLimitsFromEnv(env: Env): { ok: true; value: SessionLimits } | { ok: false; error: string } {
  const value: SessionLimits = { ...DEFAULT_SESSION_LIMITS }
  for (const [key, name] of Object.entries(SESSION_LIMIT_VARS) as [keyof SessionLimits, string][]) {
    const raw = env[name]?.trim()
    if (!raw) continue
    const n = Number(raw)
    if (!Number.isSafeInteger(n) || n < 1) return { ok: false, error: `${name} must be a whole number >= 1, not '${raw}'` }
    value[key] = n
  }
  return { ok: true, value }
}

/**
 * @example
 * const setup = depsFromEnv(process.env, { store: memorySessionStore(), readFile: (p) => readFileSync(p, 'utf8') })
 */
export function depsFromEnv(
  env: Env,
  host: { store: StoreSource; readFile?: (path: string) => string; fetch?: typeof fetch; judgeCache?: JudgeCache },
): Setup {
  const config = readConfig(env.EVALSTREAM_CONFIG, host.readFile)
  if (!config.ok) return config
  const limits = sessionLimitsFromEnv(env)
  if (!limits.ok) return limits
  const wiring = judgeWiringFromEnv(env, { cache: host.judgeCache })
  if (!wiring.ok) return wiring
  const notes = [...wiring.notes]
  const agentUrl = env.AGENT_URL?.trim() || undefined
  if (agentUrl) {
    try {
      new URL(agentUrl)
    } catch {
      return { ok: false, error: `AGENT_URL is not a URL: '${agentUrl}'` }
    }
    notes.push(`proxy mode: /run_sse and ADK routes go to ${agentUrl}`)
  }
  const createEngine: EngineFactory = (options) =>
    createSessionEngine({ ...options, ...wiring.judging(options.spec.session_id) })
  const store = typeof host.store === 'function' ? host.store(limits.value) : host.store
  return {
    ok: true,
    notes,
    limits: limits.value,
    deps: { store, limits: limits.value, createEngine, defaultConfig: config.value, agentUrl, fetch: host.fetch },
  }
}

/** EVALSTREAM_CONFIG is inline JSON (starts with `{`) or a path to a JSON file. */
export function readConfig(
  raw: string | undefined,
  readFile?: (path: string) => string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = raw?.trim()
  if (!text) return { ok: true, value: undefined }
  let json = text
  if (!text.startsWith('{')) {
    if (!readFile) return { ok: false, error: 'EVALSTREAM_CONFIG must be inline JSON here (no file system)' }
    try {
      json = readFile(text)
    } catch (e) {
      return { ok: false, error: `EVALSTREAM_CONFIG: cannot read ${text}: ${(e as Error).message}` }
    }
  }
  try {
    return { ok: true, value: JSON.parse(json) }
  } catch (e) {
    return { ok: false, error: `EVALSTREAM_CONFIG is not valid JSON: ${(e as Error).message}` }
  }
}

/** Proxy mode's timeouts from EVALSTREAM_AGENT_*_TIMEOUT_MS (defaults in src/http/proxy/settings.ts). */
import { DEFAULT_PROXY_SETTINGS, type ProxySettings } from '../http/proxy/settings.ts'
import { MAX_TIMER_MS } from '../ingest/timer-ms.ts'
import { type Env, type Read, wholeNumbersFromEnv } from './env.ts'

export const PROXY_SETTING_VARS = {
  connectTimeoutMs: 'EVALSTREAM_AGENT_CONNECT_TIMEOUT_MS',
  idleTimeoutMs: 'EVALSTREAM_AGENT_IDLE_TIMEOUT_MS',
  verdictWaitMs: 'EVALSTREAM_PROXY_VERDICT_WAIT_MS',
} as const satisfies Record<keyof ProxySettings, string>

/**
 * Each variable is a whole number >= 1; unset or empty keeps the default.
 * @example proxySettingsFromEnv({ EVALSTREAM_AGENT_IDLE_TIMEOUT_MS: '5000' }) // { ok: true, value: { ..., idleTimeoutMs: 5000 } }
 */
export function proxySettingsFromEnv(env: Env): Read<ProxySettings> {
  // Each feeds a timer, which takes at most 2^31-1 ms (a longer one would fire at once).
  const timer = { max: MAX_TIMER_MS }
  return wholeNumbersFromEnv(env, PROXY_SETTING_VARS, DEFAULT_PROXY_SETTINGS, {
    connectTimeoutMs: timer,
    idleTimeoutMs: timer,
    verdictWaitMs: timer,
  })
}

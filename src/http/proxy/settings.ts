/**
 * Proxy mode's timeouts: how long evalstream waits for the agent (a /run_sse body is read under
 * EVALSTREAM_MAX_REQUEST_BYTES like every other body, src/ingest/limits.ts). Read from the
 * environment by src/config/proxy.ts, with defaults that fail an agent that
 * hangs within a minute or two instead of undici's 300 s.
 */
/** The agent must answer (response headers) within this many ms; then 504. */
export const DEFAULT_AGENT_CONNECT_TIMEOUT_MS = 60_000

/** The agent's response body must move at least this often (ms between chunks); then it is cut. */
export const DEFAULT_AGENT_IDLE_TIMEOUT_MS = 120_000

/**
 * After the agent's /run_sse stream ends, the client's stream stays open this long (ms) at most
 * for the verdicts judges still owe that invocation; then it closes (the verdicts still reach the
 * session's results).
 */
export const DEFAULT_PROXY_VERDICT_WAIT_MS = 60_000

export type ProxySettings = {
  connectTimeoutMs: number
  idleTimeoutMs: number
  verdictWaitMs: number
}

export const DEFAULT_PROXY_SETTINGS: ProxySettings = {
  connectTimeoutMs: DEFAULT_AGENT_CONNECT_TIMEOUT_MS,
  idleTimeoutMs: DEFAULT_AGENT_IDLE_TIMEOUT_MS,
  verdictWaitMs: DEFAULT_PROXY_VERDICT_WAIT_MS,
}

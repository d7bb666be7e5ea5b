/**
 * What the HTTP app needs from its host. Runtime specifics (process, Deno, node:*, Worker env)
 * stay in the adapters, which build these.
 */
import type { SessionLimits, SessionStore } from './session-store.ts'
import type { EngineFactory } from './session.ts'

export type AppDeps = {
  store: SessionStore
  /** Builds a session's engine; returns the problem (400/422) when the spec is invalid. */
  createEngine: EngineFactory
  /** The deployment default EvalConfig (EVALSTREAM_CONFIG), used when a session brings none. */
  defaultConfig?: unknown
  /** Proxy mode: the ADK api_server to forward /run_sse and the other ADK routes to. */
  agentUrl?: string
  /** The fetch used for proxying (a test double, or a Worker's service binding). */
  fetch?: typeof fetch
  /** The store's limits, named in what a client is told about an evicted session. */
  limits?: SessionLimits
  /** New session ids; defaults to crypto.randomUUID. */
  newId?: () => string
}

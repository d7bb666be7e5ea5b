/**
 * Builds the app's dependencies from environment variables, the same way on every runtime. The
 * adapters pass in what only they can do: reading a file, the env record, the session store.
 */
import { limitsFromEnv } from '../ingest/limits.ts'
import type { JudgeCache } from '../judge/cache.ts'
import type { WorkersAiBinding } from '../judge/workers-ai-client.ts'
import { accessFromEnv } from './auth-config.ts'
import type { EvalSetStore } from './eval-set-store.ts'
import type { AppDeps } from './deps.ts'
import { judgedEngines, judgeWiringFromEnv } from './judge-wiring.ts'
import { hostMetricsFromEnv } from './metrics.ts'
import { type ObserverHost, observersFromEnv } from './observers-setup.ts'
import { proxySettingsFromEnv } from './proxy-settings.ts'
import { createResultFeed, type ResultFeed } from './result-feed.ts'
import { sessionLimitsFromEnv } from './session-limits-env.ts'
import type { SessionLimits, SessionStore } from './session-store.ts'

export type Env = Record<string, string | undefined>

export type Setup = { ok: true; deps: AppDeps; notes: string[]; sessionLimits: SessionLimits } | { ok: false; error: string }

/**
 * A store, or how to build one from the session limits the environment sets and the feed its
 * sessions publish their results to (a ready-made store publishes nothing to this host's feed).
 */
export type StoreSource = SessionStore | ((limits: SessionLimits, feed: ResultFeed) => SessionStore)

/**
 * @example
 * const setup = depsFromEnv(process.env, { store: memorySessionStore(), readFile: (p) => readFileSync(p, 'utf8') })
 */
export function depsFromEnv(
  env: Env,
  host: {
    store: StoreSource
    readFile?: (path: string) => string
    fetch?: typeof fetch
    judgeCache?: JudgeCache
    /** A Worker's Workers AI binding (env.AI): judge_model `workers-ai/...` is answered by it. */
    workersAi?: WorkersAiBinding
    /** The ADK web UI's eval sets and results (src/http/dev-eval); in memory when absent. */
    evalSets?: EvalSetStore
    /** Count for GET /metrics (Node and Deno servers; docs/metrics.md). */
    metrics?: boolean
    /** What the result exporters may use from the runtime (a name resolver; tests' backoff). */
    observers?: ObserverHost
  },
): Setup {
  const config = readConfig(env.EVALSTREAM_CONFIG, host.readFile)
  if (!config.ok) return config
  const sessionLimits = sessionLimitsFromEnv(env)
  if (!sessionLimits.ok) return sessionLimits
  const built = host.metrics ? hostMetricsFromEnv(env) : undefined
  if (built && !built.ok) return built
  const metrics = built?.metrics
  const wiring = judgeWiringFromEnv(env, { cache: host.judgeCache, observe: metrics?.judge, workersAi: host.workersAi })
  if (!wiring.ok) return wiring
  // Who may call, from where: its own block, so a bad EVALSTREAM_TOKENS stops the start.
  const access = accessFromEnv(env)
  if (!access.ok) return access
  const { auth, cors } = access.value
  const limits = limitsFromEnv(env)
  if (!limits.ok) return limits
  const publicUrl = readPublicUrl(env.EVALSTREAM_PUBLIC_URL)
  if (!publicUrl.ok) return publicUrl
  const proxy = proxySettingsFromEnv(env)
  if (!proxy.ok) return proxy
  const notes = [...access.value.notes, ...wiring.notes]
  if (metrics) notes.push(metricsNote(metrics.token !== undefined, auth !== undefined))
  const agentUrl = env.AGENT_URL?.trim() || undefined
  if (agentUrl) {
    try {
      new URL(agentUrl)
    } catch {
      return { ok: false, error: `AGENT_URL is not a URL: '${agentUrl}'` }
    }
    notes.push(`proxy mode: /run_sse and ADK routes go to ${agentUrl}`)
  }
  // The host calls each engine's release at session end or abort, freeing the executor's per-session state.
  const createEngine = judgedEngines(wiring.judging)
  const feed = createResultFeed()
  // OpenTelemetry events and webhooks per result (observers-setup.ts), watching the feed.
  const observers = observersFromEnv(env, feed, host.observers)
  if (!observers.ok) return observers
  notes.push(...observers.notes)
  const store = typeof host.store === 'function' ? host.store(sessionLimits.value, feed) : host.store
  if (metrics) {
    metrics.watch(feed)
    metrics.attachStore(store)
  }
  return {
    ok: true,
    notes,
    sessionLimits: sessionLimits.value,
    deps: {
      store,
      feed,
      observers: observers.value,
      sessionLimits: sessionLimits.value,
      createEngine,
      ...(wiring.executor ? { simulator: wiring.executor } : {}),
      defaultConfig: config.value,
      agentUrl,
      fetch: host.fetch,
      limits: limits.limits,
      publicUrl: publicUrl.value,
      auth,
      cors,
      proxy: proxy.settings,
      evalSets: host.evalSets,
      ...(metrics ? { metrics } : {}),
    },
  }
}

function metricsNote(hasToken: boolean, hasTenants: boolean): string {
  if (hasToken) return 'metrics: GET /metrics with Authorization: Bearer $EVALSTREAM_METRICS_TOKEN'
  if (hasTenants) return 'metrics: GET /metrics is refused until EVALSTREAM_METRICS_TOKEN is set (tenant tokens do not open it)'
  return 'metrics: GET /metrics, open (set EVALSTREAM_METRICS_TOKEN to protect it)'
}

/** EVALSTREAM_PUBLIC_URL: where clients reach this service (`https://evals.example.com`), never taken from a request's Host. */
function readPublicUrl(raw: string | undefined): { ok: true; value?: string } | { ok: false; error: string } {
  const text = raw?.trim()
  if (!text) return { ok: true }
  try {
    const url = new URL(text)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)')
    return { ok: true, value: url.href.replace(/\/+$/, '') }
  } catch {
    return { ok: false, error: `EVALSTREAM_PUBLIC_URL is not an http(s) URL: '${text}'` }
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

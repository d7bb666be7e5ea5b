/**
 * Builds the app's dependencies from environment variables, the same way on every runtime. The
 * adapters pass in what only they can do: reading a file, the env record, the session store.
 */
import { runQuotasFromEnv } from './run-quotas.ts'
import { agentUrlProblem, evalConfigProblem, jsonProblem, metricsTokenProblem } from './startup-checks.ts'
import { cpuBudget } from '../engine/cpu-budget.ts'
import type { JudgeCache } from '../judge/cache.ts'
import type { WorkersAiBinding } from '../judge/workers-ai-client.ts'
import type { GeminiClientFactory } from '../judge/gemini-client.ts'
import type { EvalSetStore } from '../http/dev-eval/eval-set-store.ts'
import type { AppDeps } from '../http/deps.ts'
import { judgedEngines, judgeWiringFromEnv } from './judge-wiring.ts'
import type { ExporterHost } from '../export/exporters.ts'
import { accessFromEnv } from './access.ts'
import type { Env } from './env.ts'
import { exportersFromEnv } from './exporters.ts'
import { limitsFromEnv } from './ingest-limits.ts'
import { prometheusMetricsFromEnv } from './prometheus.ts'
import { proxySettingsFromEnv } from './proxy.ts'
import { createResultFeed, type ResultFeed } from '../session/result-feed.ts'
import { memoryRunStore } from '../runner/run-store.ts'
import { sessionLimitsFromEnv } from './session-limits.ts'
import { otlpSettingsFromEnv } from './otlp.ts'
import { createOtlpMonitor, type TraceDelivery } from '../otlp-monitor/monitor.ts'
import { createTraceLinks } from '../otlp/trace-mark.ts'
import { tracedEngines } from '../otlp-monitor/traced-engine.ts'
import { sqliteConversationTimes } from '../otlp-monitor/conversations.ts'
import type { Sql } from '../session/sql.ts'
import { DEFAULT_SESSION_LIMITS, type SessionLimits, type SessionStore } from '../session/store.ts'

export type { Env }

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
    /**
     * The Gemini client: the Node and Deno servers pass @google/genai's (`createGeminiClient`, Vertex
     * AI included); without one, the plain-fetch client (Gemini API only), which keeps the SDK out of
     * a Worker's bundle.
     */
    geminiClient?: GeminiClientFactory
    /** The ADK web UI's eval sets and results (src/http/dev-eval); in memory when absent. */
    evalSets?: EvalSetStore
    /** Count for GET /metrics (Node and Deno servers; docs/metrics.md). */
    metrics?: boolean
    /** EVALSTREAM_MAX_PROCESS_BYTES when unset: the adapters derive it from their heap (`processBytesDefault`). */
    defaultProcessBytes?: number
    /** What the result exporters may use from the runtime (a name resolver; tests' backoff). */
    exporters?: ExporterHost
    /** The clock of the OTLP monitor's grace and idle timers (tests pass a fake one). */
    now?: () => number
    /** Where completed traces go (a Worker's session objects); into `store` when absent. */
    otlpDelivery?: TraceDelivery
    /** The database that keeps monitored conversations' idle times across restarts; memory when absent. */
    otlpSql?: Sql
    /** False: the OTLP monitor ends no conversation, each session ends itself (a Worker's session objects). */
    otlpEndsConversations?: boolean
  },
): Setup {
  const config = readConfig(env.EVALSTREAM_CONFIG, host.readFile)
  if (!config.ok) return config
  const configProblem = config.value === undefined ? undefined : evalConfigProblem(config.value)
  if (configProblem) return { ok: false, error: configProblem }

  // The process byte budget's default is the host's: a share of its heap (byte-budget.ts).
  const sessionLimits = sessionLimitsFromEnv(env, {
    ...DEFAULT_SESSION_LIMITS,
    maxProcessBytes: host.defaultProcessBytes ?? DEFAULT_SESSION_LIMITS.maxProcessBytes,
  })
  if (!sessionLimits.ok) return sessionLimits
  const built = host.metrics ? prometheusMetricsFromEnv(env) : undefined
  if (built && !built.ok) return built
  const weakToken = built?.value.token !== undefined ? metricsTokenProblem(built.value.token) : undefined
  if (weakToken) return { ok: false, error: weakToken }
  const metrics = built?.value
  const wiring = judgeWiringFromEnv(env, {
    cache: host.judgeCache,
    observe: metrics?.judge,
    workersAi: host.workersAi,
    geminiClient: host.geminiClient,
  })
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
  const runQuotas = runQuotasFromEnv(env)
  if (!runQuotas.ok) return runQuotas
  const notes = [...access.value.notes, ...(wiring.notes ?? []), memoryNote(sessionLimits.value)]
  if (metrics) notes.push(metricsNote(metrics.token !== undefined, auth !== undefined))
  const agentUrl = env.AGENT_URL?.trim() || undefined
  if (agentUrl) {
    const problem = agentUrlProblem(agentUrl)
    if (problem) return { ok: false, error: problem }
    notes.push(`proxy mode: /run_sse and ADK routes go to ${agentUrl}`)
  }
  // The host calls each engine's release at session end or abort, freeing the executor's per-session state.
  // Sessions fed from OTLP carry their trace's ids and times on their events (src/otlp/trace-mark.ts, read by src/otlp-monitor/traced-engine.ts);
  // every session's scoring is timed against the CPU budget (EVALSTREAM_MAX_*_CPU_MS).
  const links = createTraceLinks()
  const createEngine = tracedEngines(judgedEngines(wiring.value.judging, { budget: cpuBudget(limits.value) }), links)
  const feed = createResultFeed()
  // OpenTelemetry events and webhooks per result (src/config/exporters.ts), watching the feed.
  const exporters = exportersFromEnv(env, feed, host.exporters, links)
  if (!exporters.ok) return exporters
  notes.push(...(exporters.notes ?? []))
  const otlpSettings = otlpSettingsFromEnv(env, limits.value, config.value, host.readFile)
  if (!otlpSettings.ok) return otlpSettings
  notes.push(...(otlpSettings.notes ?? []))
  const store = typeof host.store === 'function' ? host.store(sessionLimits.value, feed) : host.store
  const otlp = otlpSettings.value
  const monitor = createOtlpMonitor({
    store,
    createEngine,
    appConfig: otlp.appConfig,
    assemblerLimits: otlp.assembler,
    limits: limits.value,
    conversationIdleMs: otlp.conversationIdleMs,
    sessionCaps: otlp.sessionCaps,
    maxTenantHeldBytes: otlp.maxTenantHeldBytes,
    ...(metrics ? { dropped: metrics.otlp.dropped } : {}),
    ...(host.now ? { now: host.now } : {}),
    ...(host.otlpDelivery ? { delivery: host.otlpDelivery } : {}),
    ...(host.otlpSql ? { conversations: sqliteConversationTimes(host.otlpSql) } : {}),
    ...(host.otlpEndsConversations === false ? { endsConversations: false } : {}),
  })
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
      runs: memoryRunStore(runQuotas.value),
      feed,
      exporters: exporters.value,
      sessionLimits: sessionLimits.value,
      createEngine,
      ...(wiring.value.executor ? { simulator: wiring.value.executor } : {}),
      defaultConfig: config.value,
      agentUrl,
      fetch: host.fetch,
      limits: limits.value,
      publicUrl: publicUrl.value,
      auth,
      cors,
      proxy: proxy.value,
      runQuotas: runQuotas.value,
      evalSets: host.evalSets,
      ...(metrics ? { metrics } : {}),
      otlp: {
        monitor,
        limits: otlp.limits,
        assembler: otlp.assembler,
        conversationIdleMs: otlp.conversationIdleMs,
        ...otlp.intake,
      },
    },
  }
}

function memoryNote(limits: SessionLimits): string {
  return `memory: a session takes in at most ${limits.maxSessionBytes} bytes (EVALSTREAM_MAX_SESSION_BYTES), all sessions hold at most ${limits.maxProcessBytes} in memory (EVALSTREAM_MAX_PROCESS_BYTES)`
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
function readConfig(
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
      const code = (e as { code?: unknown }).code
      return { ok: false, error: `EVALSTREAM_CONFIG: cannot read the file ${text}${typeof code === 'string' ? ` (${code})` : ''}` }
    }
  }
  try {
    return { ok: true, value: JSON.parse(json) }
  } catch (e) {
    // Never the parser's own message: it quotes the text, which may be any file the server can read.
    const where = text.startsWith('{') ? 'EVALSTREAM_CONFIG' : `EVALSTREAM_CONFIG (the file ${text})`
    return { ok: false, error: `${where}: ${jsonProblem(e)}; it must be an ADK EvalConfig as JSON` }
  }
}

/**
 * The OTLP receiver's settings: its limits (EVALSTREAM_OTLP_*, src/otlp/limits.ts), how long a
 * conversation may be quiet before it is ended (EVALSTREAM_OTLP_CONVERSATION_IDLE_MS), and which
 * criteria score which app (EVALSTREAM_OTLP_CONFIG, inline JSON or a file path):
 *
 *   { "apps": { "weather_agent": { "eval_config": {…}, "eval_case": {…} } }, "default": { "eval_config": {…} } }
 *
 * An app is matched by its root agent's name (`gen_ai.agent.name` of the root `invoke_agent`
 * span) or, without one, the resource's `service.name`. Apps not listed use `default`, then the
 * deployment's EVALSTREAM_CONFIG. `eval_case` is optional: an ADK EvalCase whose turns are the
 * reference for the conversation's invocations in order (an expected tool trajectory), as a
 * session created with that case would use it; without it only reference-free criteria score.
 */
import { isRecord } from '../adk/json.ts'
import type { Limits } from '../ingest/limits.ts'
import {
  type AssemblerLimits,
  DEFAULT_ASSEMBLER_LIMITS,
  DEFAULT_OTLP_LIMITS,
  MAX_OTLP_VALUE_DEPTH_CEILING,
  OTLP_LIMIT_ENV,
  type OtlpLimits,
} from '../otlp/index.ts'
import {
  DEFAULT_CONVERSATION_IDLE_MS,
  DEFAULT_OTLP_MAX_NEW_SESSIONS_PER_REQUEST,
  DEFAULT_OTLP_MAX_SESSIONS_PER_TENANT,
  type MonitoredApp,
  type OtlpSessionCaps,
} from '../session/otlp-monitor.ts'
import { type Env, type Read, wholeNumber, wholeNumbersFromEnv } from './env.ts'
import { MAX_TIMER_MS } from '../ingest/timer-ms.ts'
import { DEFAULT_OTLP_BODY_TIMEOUT_MS, DEFAULT_OTLP_MAX_TENANT_BYTES } from '../http/otlp-intake.ts'
import { DEFAULT_OTLP_CONCURRENCY_PER_TENANT } from '../http/otlp-routes.ts'
import { DEFAULT_OTLP_MAX_TENANT_HELD_BYTES } from '../session/otlp-held-bytes.ts'
import { evalConfigProblem, jsonProblem } from './startup-checks.ts'

/** How often the grace and idle timers are checked on Node and Deno. */
export const OTLP_TICK_MS = 1_000
/** Apps EVALSTREAM_OTLP_CONFIG may list. */
export const MAX_OTLP_APPS = 1_000

export type OtlpSettings = {
  limits: OtlpLimits
  assembler: AssemblerLimits
  conversationIdleMs: number
  sessionCaps: OtlpSessionCaps
  /** Bytes of spans the assembler may hold for one tenant (src/session/otlp-held-bytes.ts). */
  maxTenantHeldBytes: number
  /** What one request may hold: its body's read time, its tenant's bytes and decode slots (src/http/otlp-intake.ts). */
  intake: { bodyTimeoutMs: number; maxTenantBytes: number; maxConcurrentPerTenant: number }
  appConfig: (appName: string | undefined) => MonitoredApp
}

/**
 * The EVALSTREAM_OTLP_* limits (src/otlp/limits.ts) over their defaults, on config/env.ts's rule;
 * `event` gives the JSON bounds in force for events (EVALSTREAM_MAX_JSON_DEPTH / _STRING_LENGTH).
 * @example otlpLimitsFromEnv({ EVALSTREAM_OTLP_TRACE_GRACE_MS: '3000' }, { maxJsonDepth: 100, maxStringLength: 1e6 })
 */
export function otlpLimitsFromEnv(
  env: Env,
  event: Pick<OtlpLimits, 'maxJsonDepth' | 'maxStringLength'>,
): { ok: true; otlp: OtlpLimits; assembler: AssemblerLimits } | { ok: false; error: string } {
  // What `event` holds is spread over the OTLP defaults, and the variables read over both.
  const read = wholeNumbersFromEnv(env, OTLP_LIMIT_ENV, { ...DEFAULT_OTLP_LIMITS, ...event, ...DEFAULT_ASSEMBLER_LIMITS }, {
    maxValueDepth: { max: MAX_OTLP_VALUE_DEPTH_CEILING },
  })
  if (!read.ok) return read
  const { maxOpenTraces, maxSpansPerTrace, graceMs, idleMs, ...otlp } = read.value
  return { ok: true, otlp: { ...event, ...otlp }, assembler: { maxOpenTraces, maxSpansPerTrace, graceMs, idleMs } }
}

/** @example otlpSettingsFromEnv({ EVALSTREAM_OTLP_CONFIG: '{"apps":{}}' }, limits, config, readFile) */
export function otlpSettingsFromEnv(
  env: Env,
  eventLimits: Limits,
  defaultConfig: unknown,
  readFile?: (path: string) => string,
): Read<OtlpSettings> {
  const limits = otlpLimitsFromEnv(env, eventLimits)
  if (!limits.ok) return limits
  const idle = wholeNumber(env, 'EVALSTREAM_OTLP_CONVERSATION_IDLE_MS', DEFAULT_CONVERSATION_IDLE_MS)
  if (!idle.ok) return idle
  const caps = wholeNumbersFromEnv(env, {
    perRequest: 'EVALSTREAM_OTLP_MAX_NEW_SESSIONS_PER_REQUEST',
    perTenant: 'EVALSTREAM_OTLP_MAX_SESSIONS_PER_TENANT',
    bodyTimeout: 'EVALSTREAM_OTLP_BODY_TIMEOUT_MS',
    tenantBytes: 'EVALSTREAM_OTLP_MAX_TENANT_BYTES',
    heldBytes: 'EVALSTREAM_OTLP_MAX_TENANT_HELD_BYTES',
    tenantSlots: 'EVALSTREAM_OTLP_CONCURRENCY_PER_TENANT',
  }, {
    perRequest: DEFAULT_OTLP_MAX_NEW_SESSIONS_PER_REQUEST,
    perTenant: DEFAULT_OTLP_MAX_SESSIONS_PER_TENANT,
    bodyTimeout: DEFAULT_OTLP_BODY_TIMEOUT_MS,
    tenantBytes: DEFAULT_OTLP_MAX_TENANT_BYTES,
    heldBytes: DEFAULT_OTLP_MAX_TENANT_HELD_BYTES,
    tenantSlots: DEFAULT_OTLP_CONCURRENCY_PER_TENANT,
  }, {
    // The deadline feeds a timer: past 2^31-1 ms it would fire at once.
    bodyTimeout: { max: MAX_TIMER_MS },
  })
  if (!caps.ok) return caps
  const { perRequest, perTenant, bodyTimeout, tenantBytes, heldBytes, tenantSlots } = caps.value
  const apps = readApps(env.EVALSTREAM_OTLP_CONFIG, readFile)
  if (!apps.ok) return apps
  const { byName, fallback } = apps.value
  const orDefault = (app: MonitoredApp | undefined): MonitoredApp => ({ eval_config: defaultConfig, ...app })
  const notes = byName.size > 0 || fallback
    ? [`OTLP monitoring: ${byName.size} app(s) configured${fallback ? ' and a default' : ''} (EVALSTREAM_OTLP_CONFIG)`]
    : []
  return {
    ok: true,
    notes,
    value: {
      limits: limits.otlp,
      assembler: limits.assembler,
      conversationIdleMs: idle.value,
      sessionCaps: { maxNewSessionsPerRequest: perRequest, maxSessionsPerTenant: perTenant },
      maxTenantHeldBytes: heldBytes,
      intake: { bodyTimeoutMs: bodyTimeout, maxTenantBytes: tenantBytes, maxConcurrentPerTenant: tenantSlots },
      appConfig: (name) => orDefault((name !== undefined ? byName.get(name) : undefined) ?? fallback),
    },
  }
}

type Apps = { byName: Map<string, MonitoredApp>; fallback: MonitoredApp | undefined }

function readApps(raw: string | undefined, readFile?: (path: string) => string): Read<Apps> {
  const text = raw?.trim()
  if (!text) return { ok: true, value: { byName: new Map(), fallback: undefined } }
  let json = text
  if (!text.startsWith('{')) {
    if (!readFile) return { ok: false, error: 'EVALSTREAM_OTLP_CONFIG must be inline JSON here (no file system)' }
    try {
      json = readFile(text)
    } catch {
      return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: cannot read the file ${text}` }
    }
  }
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (e) {
    return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: ${jsonProblem(e)}` }
  }
  if (!isRecord(value)) {
    return { ok: false, error: 'EVALSTREAM_OTLP_CONFIG must be a JSON object: { "apps": { "<app>": { "eval_config": … } }, "default": … }' }
  }
  const unknown = Object.keys(value).filter((k) => k !== 'apps' && k !== 'default')
  if (unknown.length > 0) return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: unknown key '${unknown[0]}' (expected "apps" and "default")` }
  const byName = new Map<string, MonitoredApp>()
  if (value.apps !== undefined && !isRecord(value.apps)) {
    return { ok: false, error: 'EVALSTREAM_OTLP_CONFIG: $.apps must be an object of app name -> { eval_config, eval_case }' }
  }
  const entries = Object.entries(isRecord(value.apps) ? value.apps : {})
  if (entries.length > MAX_OTLP_APPS) {
    return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: $.apps lists ${entries.length} apps, more than ${MAX_OTLP_APPS}` }
  }
  for (const [name, app] of entries) {
    const read = readApp(app, `$.apps[${JSON.stringify(name)}]`)
    if (!read.ok) return read
    byName.set(name, read.value)
  }
  let fallback: MonitoredApp | undefined
  if (value.default !== undefined) {
    const read = readApp(value.default, '$.default')
    if (!read.ok) return read
    fallback = read.value
  }
  return { ok: true, value: { byName, fallback } }
}

function readApp(app: unknown, where: string): Read<MonitoredApp> {
  if (!isRecord(app)) return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: ${where} must be an object { eval_config, eval_case }` }
  const extra = Object.keys(app).find((k) => k !== 'eval_config' && k !== 'eval_case')
  if (extra) return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: ${where}: unknown key '${extra}' (expected eval_config, eval_case)` }
  if (app.eval_config !== undefined) {
    const problem = evalConfigProblem(app.eval_config)
    if (problem) {
      return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: ${where}.eval_config: ${problem.replace(/^EVALSTREAM_CONFIG:? ?/, '')}` }
    }
  }
  if (app.eval_case !== undefined && !isRecord(app.eval_case)) {
    return { ok: false, error: `EVALSTREAM_OTLP_CONFIG: ${where}.eval_case must be an ADK EvalCase object` }
  }
  return {
    ok: true,
    value: {
      ...(app.eval_config !== undefined ? { eval_config: app.eval_config } : {}),
      ...(app.eval_case !== undefined ? { eval_case: app.eval_case } : {}),
    },
  }
}

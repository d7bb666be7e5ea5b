/**
 * Settings checked once at start, so a typo stops the server with a message naming the variable
 * instead of starting it half-configured: the deployment eval config (EVALSTREAM_CONFIG) must be
 * an ADK EvalConfig, the agent (AGENT_URL) an http(s) URL, and the metrics token long enough to be
 * a secret. Messages never repeat the content of a file (EVALSTREAM_CONFIG may name any path the
 * server can read) nor a token.
 */
import { EvalConfig } from '../adk/eval-config.ts'
import { MIN_TOKEN_CHARS } from '../http/auth-config.ts'
import { planSession } from '../engine/plan.ts'

/** Issues of a refused EVALSTREAM_CONFIG named at most. */
const MAX_CONFIG_ISSUES = 3

/**
 * Why a decoded EVALSTREAM_CONFIG cannot be the deployment's eval config, or undefined. Only the
 * JSON path and what was expected are said, never the value found there.
 * @example evalConfigProblem({ criteria: 'x' }) // 'EVALSTREAM_CONFIG is not an ADK EvalConfig: $.criteria: Invalid input: expected record, received string'
 */
export function evalConfigProblem(value: unknown): string | undefined {
  const parsed = EvalConfig.safeParse(value)
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, MAX_CONFIG_ISSUES).map((i) =>
      `${['$', ...i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))].join('')}: ${i.message}`
    )
    return `EVALSTREAM_CONFIG is not an ADK EvalConfig: ${issues.join('; ')}`
  }
  const planned = planSession({ eval_config: value }, undefined, { configSource: 'EVALSTREAM_CONFIG' })
  return planned.ok ? undefined : `EVALSTREAM_CONFIG: ${planned.problem.detail}`
}

/**
 * Why a JSON text could not be decoded, with the character position when the runtime gives one
 * but none of the text: V8's messages quote the text around the error.
 * @example jsonProblem(new SyntaxError('Unexpected token \'r\', "root:x:0:0"... is not valid JSON')) // 'it is not valid JSON'
 */
export function jsonProblem(error: unknown): string {
  const at = /position (\d+)/.exec(error instanceof Error ? error.message : '')
  return at ? `it is not valid JSON (error at character ${at[1]})` : 'it is not valid JSON'
}

/** Why AGENT_URL cannot be the agent, or undefined. */
export function agentUrlProblem(raw: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `AGENT_URL is not a URL: '${raw}'`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `AGENT_URL must be an http(s) URL (the ADK api_server), not ${url.protocol.slice(0, -1)}: '${raw}'`
  }
  if (url.username || url.password) {
    return 'AGENT_URL must not carry credentials (user:password@); they would be sent with every proxied request'
  }
  return undefined
}

/** Why EVALSTREAM_METRICS_TOKEN is too weak to guard /metrics, or undefined. */
export function metricsTokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_CHARS) {
    return `EVALSTREAM_METRICS_TOKEN has ${token.length} characters; it needs at least ${MIN_TOKEN_CHARS} (generate one with: openssl rand -hex 32)`
  }
  return undefined
}

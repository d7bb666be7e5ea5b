/**
 * ADK's `judge_model_config` is a Python GenerateContentConfig, written in snake_case or camelCase;
 * the JS SDK reads camelCase only. Keys are converted; values that are user data (JSON schemas,
 * labels) are left exactly as given, because their keys are names, not fields.
 */
import { toCamel } from '../adk/casing.ts'

/** Fields whose value is user data: never rename keys inside them. */
const OPAQUE = new Set(['responseSchema', 'responseJsonSchema', 'labels', 'parametersJsonSchema'])
/** Fields the judge owns per call: a config cannot set them. */
const OWNED = new Set(['abortSignal', 'httpOptions', 'candidateCount'])

function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    const name = toCamel(key)
    out[name] = OPAQUE.has(name) ? v : camelize(v)
  }
  return out
}

/**
 * The SDK config for one judge call, from the criterion's modelConfig.
 * @example
 * toSdkConfig({ max_output_tokens: 64, thinking_config: { thinking_budget: 0 } })
 * // { maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 0 } }
 */
export function toSdkConfig(modelConfig: Record<string, unknown> | undefined): Record<string, unknown> {
  const out = (camelize(modelConfig ?? {}) as Record<string, unknown>) ?? {}
  for (const key of OWNED) delete out[key]
  return out
}

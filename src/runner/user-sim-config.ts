/**
 * ADK's `user_simulator_config` (EvalConfig, spec §5), read as ADK's LlmBackedUserSimulatorConfig
 * reads it: both casings, unknown keys kept and ignored, ADK's defaults. `type` absent or
 * `"llm_backed"` selects the LLM-backed simulator; another type (ADK's audio simulator) is not
 * available here. `custom_instructions` must use `{{ stop_signal }}`, `{{ conversation_plan }}` and
 * `{{ conversation_history }}` (and `{{ persona }}` when a scenario has a persona), as ADK checks.
 */
import * as z from 'zod'
import { lazyAdkObject } from '../adk/casing.ts'
import { parseEvalConfig } from '../adk/eval-config.ts'
import { describeZodError } from '../adk/parse-error.ts'
import { templateNames } from '../core/prompt-template.ts'

/** The simulator's stop signal: a reply containing it (any case) ends the conversation. Not configurable in ADK. */
export const USER_SIMULATOR_STOP_SIGNAL = '</finished>'
/** ADK 2.0's default simulator model. */
export const DEFAULT_USER_SIMULATOR_MODEL = 'gemini-2.5-flash'
/** Messages the simulator may send, the starting prompt included (ADK's default); a negative value means no limit. */
export const DEFAULT_MAX_ALLOWED_INVOCATIONS = 20
/** ADK's default model configuration: thinking on, with a 10240-token budget (thoughts never reach the agent). */
export const DEFAULT_USER_SIMULATOR_MODEL_CONFIGURATION: Readonly<Record<string, unknown>> = {
  thinking_config: { include_thoughts: true, thinking_budget: 10_240 },
}
/** Placeholders every custom_instructions template must use. */
export const REQUIRED_PLACEHOLDERS = ['stop_signal', 'conversation_plan', 'conversation_history'] as const

const Schema = lazyAdkObject(
  () => ({
    type: z.string().nullish(),
    model: z.string().min(1).default(DEFAULT_USER_SIMULATOR_MODEL),
    model_configuration: z.record(z.string(), z.unknown()).nullish(),
    max_allowed_invocations: z.number().int().default(DEFAULT_MAX_ALLOWED_INVOCATIONS),
    custom_instructions: z.string().nullish(),
    include_function_calls: z.boolean().nullish(),
  }),
  'allow',
)

export type UserSimulatorConfig = {
  model: string
  modelConfiguration: Record<string, unknown>
  /** Negative: no limit (ADK checks `limit >= 0`). */
  maxAllowedInvocations: number
  customInstructions?: string
  includeFunctionCalls: boolean
}

export type ReadConfig = { ok: true; config: UserSimulatorConfig } | { ok: false; invalid: string } | { ok: false; unsupported: string }

/**
 * The simulator config of an EvalConfig (raw JSON or already parsed); ADK's defaults when it has none.
 * @example readUserSimulatorConfig({ criteria: {}, user_simulator_config: { maxAllowedInvocations: 5 } })
 * // { ok: true, config: { model: 'gemini-2.5-flash', maxAllowedInvocations: 5, ... } }
 */
export function readUserSimulatorConfig(evalConfig: unknown): ReadConfig {
  const parsedConfig = parseEvalConfig(evalConfig ?? {})
  if (!parsedConfig.ok) return { ok: false, invalid: parsedConfig.error.message }
  const raw = parsedConfig.config.user_simulator_config ?? {}
  const parsed = Schema.safeParse(raw)
  if (!parsed.success) return { ok: false, invalid: describeZodError(parsed.error, { source: 'user_simulator_config' }) }
  const c = parsed.data
  if (c.type != null && c.type !== 'llm_backed') {
    return { ok: false, unsupported: `user_simulator_config.type '${c.type}' is not available in evalstream (only 'llm_backed')` }
  }
  if (c.custom_instructions != null) {
    const problem = checkTemplate(c.custom_instructions, REQUIRED_PLACEHOLDERS)
    if (problem) return { ok: false, invalid: `user_simulator_config.custom_instructions: ${problem}` }
  }
  return {
    ok: true,
    config: {
      model: c.model,
      modelConfiguration: c.model_configuration ?? { ...DEFAULT_USER_SIMULATOR_MODEL_CONFIGURATION },
      maxAllowedInvocations: c.max_allowed_invocations,
      ...(c.custom_instructions != null ? { customInstructions: c.custom_instructions } : {}),
      includeFunctionCalls: c.include_function_calls ?? false,
    },
  }
}

/**
 * Why a template cannot be used (unsupported syntax, a required placeholder missing), or undefined.
 * @example checkTemplate('{{ stop_signal }}', ['stop_signal', 'persona']) // 'it must use {{ persona }}'
 */
export function checkTemplate(template: string, required: readonly string[]): string | undefined {
  const names = templateNames(template)
  if (!names.ok) return names.error
  const missing = required.filter((name) => !names.names.includes(name))
  return missing.length > 0 ? `it must use ${missing.map((m) => `{{ ${m} }}`).join(', ')}` : undefined
}

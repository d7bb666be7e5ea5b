/**
 * ADK's EvalSet and EvalCase (spec §1.2) and the user-simulation data of §5.
 *
 * Casing (spec §1.1): EvalSet's own keys are snake_case only (it has no alias generator) and unknown
 * top-level keys are ignored; everything below it accepts both casings and rejects unknown keys, so a
 * typo inside an eval case fails the whole file, as it does in ADK.
 */
import * as z from 'zod'
import { lazySchema } from './lazy-schema.ts'
import { type AdkModel, lazyAdkObject, optionalField } from './casing.ts'
import { Invocation, Rubric } from './invocation.ts'

const nullish = optionalField

const NUMERIC_STRING = /^\s*[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?\s*$/

/**
 * A pydantic `float` in lax mode: numbers, numeric strings (" 0.5 ", "1e-1", "1_0") and booleans.
 * @example laxFloat.parse('0.5') // 0.5
 */
export const laxFloat: z.ZodType<number> = z.preprocess((value) => {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'string' && NUMERIC_STRING.test(value)) return Number(value.replaceAll('_', '').trim())
  return value
}, z.number())

/** The session an eval case starts from: app, user and initial state. */
export type SessionInput = {
  app_name: string
  user_id: string
  state: Record<string, unknown>
}
export const SessionInput: AdkModel<SessionInput> = lazyAdkObject(
  () => ({
    app_name: z.string(),
    user_id: z.string(),
    state: z
      .record(z.string(), z.unknown())
      .nullish()
      .transform((v) => v ?? {}),
  }),
  'forbid',
)

/** One behaviour of a simulated user, with the rubrics that catch a violation of it. */
export type PersonaBehavior = {
  name: string
  description: string
  behavior_instructions: string[]
  violation_rubrics: string[]
}
export const PersonaBehavior: AdkModel<PersonaBehavior> = lazyAdkObject(
  () => ({
    name: z.string(),
    description: z.string(),
    behavior_instructions: z.array(z.string()),
    violation_rubrics: z.array(z.string()),
  }),
  'forbid',
)

/** A simulated user's persona. */
export type UserPersona = {
  id: string
  description: string
  behaviors: PersonaBehavior[]
}
export const UserPersona: AdkModel<UserPersona> = lazyAdkObject(
  () => ({ id: z.string(), description: z.string(), behaviors: z.array(PersonaBehavior) }),
  'forbid',
)

/** ADK's built-in persona ids; a string persona names one of them (resolved by the simulator). */
export const BUILT_IN_PERSONAS = ['EXPERT', 'NOVICE', 'EVALUATOR'] as const

/** A simulated conversation: the first prompt, the plan the user follows and who the user is. */
export type ConversationScenario = {
  starting_prompt: string
  conversation_plan: string
  /** A persona, or the id of a built-in one (`BUILT_IN_PERSONAS`). */
  user_persona?: UserPersona | string
}
export const ConversationScenario: AdkModel<ConversationScenario> = lazyAdkObject(
  () => ({
    starting_prompt: z.string(),
    conversation_plan: z.string(),
    user_persona: nullish(z.union([UserPersona, z.string()])),
  }),
  'forbid',
)

/** One eval case: a static conversation or a simulated one, never both. */
export type EvalCase = {
  eval_id: string
  conversation?: Invocation[]
  conversation_scenario?: ConversationScenario
  session_input?: SessionInput
  creation_timestamp: number
  rubrics?: Rubric[]
  final_session_state?: Record<string, unknown>
}
export const EvalCase: z.ZodType<EvalCase> = lazyAdkObject(
  () => ({
    eval_id: z.string(),
    conversation: nullish(z.array(Invocation)),
    conversation_scenario: nullish(ConversationScenario),
    session_input: nullish(SessionInput),
    creation_timestamp: laxFloat.nullish().transform((v) => v ?? 0),
    rubrics: nullish(z.array(Rubric)),
    final_session_state: nullish(z.record(z.string(), z.unknown())),
  }),
  'forbid',
).superRefine((evalCase, ctx) => {
  // ADK's model validator: a case is either a static conversation or a simulated one, never both.
  const has = [evalCase.conversation !== undefined, evalCase.conversation_scenario !== undefined]
  if (has[0] !== has[1]) return
  ctx.addIssue({
    code: 'custom',
    message: `an eval case needs exactly one of "conversation" and "conversation_scenario" (found ${has[0] ? 'both' : 'neither'})`,
  })
})

/**
 * ADK's EvalSet. Top-level keys are snake_case only: `{"evalSetId": ...}` fails, as in ADK.
 * @example
 * EvalSet.parse({ eval_set_id: 's', eval_cases: [] }) // { eval_set_id: 's', eval_cases: [], creation_timestamp: 0 }
 */
export type EvalSet = {
  eval_set_id: string
  name?: string
  description?: string
  eval_cases: EvalCase[]
  creation_timestamp: number
}
export const EvalSet: z.ZodType<EvalSet> = lazySchema(() =>
  z.object({
    eval_set_id: z.string(),
    name: nullish(z.string()),
    description: nullish(z.string()),
    eval_cases: z.array(EvalCase),
    creation_timestamp: laxFloat.nullish().transform((v) => v ?? 0),
  })
)

/** The camelCase spellings of EvalSet's keys, which ADK does not accept (used for a hint). */
export const CAMEL_EVAL_SET_KEYS = ['evalSetId', 'evalCases', 'creationTimestamp'] as const

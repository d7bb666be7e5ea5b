/**
 * ADK's two legacy eval-data formats and their conversion to an EvalSet (spec §1.3):
 * - the named list `[{ name, data: [row...], initial_session }]` that `adk eval` converts, and
 * - the flat list `[row...]` (the oldest `.test.json`) that only AgentEvaluator (pytest) accepts.
 * A row is `{ query, expected_tool_use: [{tool_name, tool_input}], expected_intermediate_agent_responses,
 * reference }`; ADK reads rows as plain dicts, so unknown row keys are ignored here too.
 *
 * Deliberate difference from ADK: ADK gives each converted invocation a random uuid4 id and stamps
 * invocations, cases and the set with the current time. evalstream's core is deterministic, so the
 * n-th invocation (0-based) of case `c` gets the id `${c}-${n}` and every timestamp is the
 * `timestamp` option (default 0). Scores do not depend on either.
 */
import * as z from 'zod'
import { lazySchema } from './lazy-schema.ts'
import { EvalSet } from './eval-set.ts'

/** An expected tool call of a legacy row. */
export type LegacyToolUse = {
  tool_name: string
  tool_input?: Record<string, unknown> | null
}
export const LegacyToolUse: z.ZodType<LegacyToolUse> = lazySchema(() =>
  z.object({
    tool_name: z.string(),
    tool_input: z.record(z.string(), z.unknown()).nullish(),
  })
)

/** One turn of a legacy file: the query, the expected calls and responses, the reference answer. */
export type LegacyRow = {
  query: string
  expected_tool_use?: LegacyToolUse[]
  expected_intermediate_agent_responses?: { author: string; text: string }[]
  reference?: string
}
export const LegacyRow: z.ZodType<LegacyRow> = lazySchema(() =>
  z.object({
    query: z.string(),
    expected_tool_use: z.array(LegacyToolUse).optional(),
    expected_intermediate_agent_responses: z.array(z.object({ author: z.string(), text: z.string() })).optional(),
    reference: z.string().optional(),
  })
)

/** The flat legacy list: the rows of a single case. */
export type FlatLegacyList = LegacyRow[]
export const FlatLegacyList: z.ZodType<FlatLegacyList> = lazySchema(() => z.array(LegacyRow))

/** The session a named legacy case starts from. */
export type LegacyInitialSession = {
  app_name?: string
  user_id?: string
  state?: Record<string, unknown>
}
export const LegacyInitialSession: z.ZodType<LegacyInitialSession> = lazySchema(() =>
  z.object({
    app_name: z.string().optional(),
    user_id: z.string().optional(),
    state: z.record(z.string(), z.unknown()).optional(),
  })
)

/** One case of the named legacy list. */
export type NamedLegacyCase = {
  name: string
  data: LegacyRow[]
  initial_session?: LegacyInitialSession | null
}
export const NamedLegacyCase: z.ZodType<NamedLegacyCase> = lazySchema(() =>
  z.object({
    name: z.string(),
    data: z.array(LegacyRow),
    initial_session: LegacyInitialSession.nullish(),
  })
)
export type NamedLegacyList = NamedLegacyCase[]
export const NamedLegacyList: z.ZodType<NamedLegacyList> = lazySchema(() => z.array(NamedLegacyCase))

export type LegacyConversionOptions = {
  evalSetId: string
  /** Used for every creation_timestamp (ADK: the time of conversion). Default 0. */
  timestamp?: number
}

function invocationJson(row: LegacyRow, id: string, timestamp: number) {
  return {
    invocation_id: id,
    user_content: { role: 'user', parts: [{ text: row.query }] },
    // A missing reference becomes an empty text part, not a missing final response (ADK does the same).
    final_response: { role: 'model', parts: [{ text: row.reference ?? '' }] },
    intermediate_data: {
      // No call ids: ADK's converter sets only name and args.
      tool_uses: (row.expected_tool_use ?? []).map((t) => ({ name: t.tool_name, args: t.tool_input })),
      intermediate_responses: (row.expected_intermediate_agent_responses ?? []).map((r) => [
        r.author,
        [{ text: r.text }],
      ]),
    },
    creation_timestamp: timestamp,
  }
}

/**
 * Converts the named legacy list the way ADK's `convert_eval_set_to_pydantic_schema` does.
 * @example
 * convertNamedLegacy([{ name: 'c', data: [{ query: 'hi' }] }], { evalSetId: 's' }).eval_cases[0].eval_id // 'c'
 */
export function convertNamedLegacy(cases: NamedLegacyList, options: LegacyConversionOptions): EvalSet {
  const timestamp = options.timestamp ?? 0
  const evalCases = cases.map((legacyCase) => {
    const session = legacyCase.initial_session
    // ADK builds a SessionInput only from a non-empty initial_session, filling gaps with "" and {}.
    const sessionInput = session && Object.keys(session).length > 0
      ? { app_name: session.app_name ?? '', user_id: session.user_id ?? '', state: session.state ?? {} }
      : undefined
    return {
      eval_id: legacyCase.name,
      conversation: legacyCase.data.map((row, i) => invocationJson(row, `${legacyCase.name}-${i}`, timestamp)),
      session_input: sessionInput,
      creation_timestamp: timestamp,
    }
  })
  // Re-validate what we built so the result is exactly what parsing an EvalSet file would give.
  return EvalSet.parse({
    eval_set_id: options.evalSetId,
    name: options.evalSetId,
    eval_cases: evalCases,
    creation_timestamp: timestamp,
  })
}

/**
 * Converts the flat legacy list as AgentEvaluator does: all rows become one case named after the
 * file (`evalId`, ADK uses the file path), with the optional initial session.
 * @example
 * convertFlatLegacy([{ query: 'hi', reference: 'hello' }], { evalSetId: 's', evalId: 'a.test.json' })
 */
export function convertFlatLegacy(
  rows: FlatLegacyList,
  options: LegacyConversionOptions & { evalId: string; initialSession?: LegacyInitialSession },
): EvalSet {
  return convertNamedLegacy([{ name: options.evalId, data: rows, initial_session: options.initialSession }], options)
}

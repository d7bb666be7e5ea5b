/**
 * Reads an eval set in any of the formats ADK reads, in AgentEvaluator's order: EvalSet first, then
 * the named legacy list (`adk eval` converts it), then the flat legacy list (pytest only).
 */
import type * as z from 'zod'
import { CAMEL_EVAL_SET_KEYS, EvalSet } from './eval-set.ts'
import { findLongList } from './json-bounds.ts'
import { convertFlatLegacy, convertNamedLegacy, FlatLegacyList, type LegacyInitialSession, NamedLegacyList } from './legacy.ts'
import {
  type EvalStreamParseError,
  issueLines,
  type ParseFailure,
  type ParseIssue,
  readableIssues,
  simpleParseError,
  subject,
} from './parse-error.ts'

/** Which of ADK's formats a file was in. */
export type EvalSetFormat = 'eval-set' | 'named-legacy-list' | 'flat-legacy-list'

export type ParseEvalSetOptions = {
  /** File name or URL, used in error messages and for the default eval set id. */
  source?: string
  /** Id for a converted legacy file; defaults to the file name without its extension. */
  evalSetId?: string
  /** Timestamp for converted legacy files (ADK: now). Default 0. */
  timestamp?: number
  /** initial_session for a flat legacy list (AgentEvaluator reads it from a side file). */
  initialSession?: LegacyInitialSession
}

export type ParseEvalSetResult = { ok: true; evalSet: EvalSet; format: EvalSetFormat } | ParseFailure

/**
 * Items in any one list of an eval set (its cases, a case's turns, a turn's tool uses, ...). A
 * session scores at most MAX_INVOCATIONS_PER_SESSION (10,000) invocations, so no longer list is
 * needed; checked before the schemas, a list of a million bad items costs one walk, not seconds of
 * schema issues (and zod's issue list, spread into one call, overflows the stack past ~150,000).
 */
export const MAX_EVAL_SET_LIST_ITEMS = 10_000

const EXTENSIONS = ['.evalset.json', '.test.json', '.json']
const DEFAULT_EVAL_SET_ID = 'eval_set'

/**
 * `dir/home_automation.test.json` -> `home_automation`.
 * @example evalSetIdFromSource('a/b/weather.evalset.json') // 'weather'
 */
export function evalSetIdFromSource(source: string): string {
  const base = source.split(/[\\/]/).pop() ?? source
  const ext = EXTENSIONS.find((e) => base.endsWith(e) && base.length > e.length)
  return ext ? base.slice(0, -ext.length) : base
}

const FORMAT_LABELS: Record<EvalSetFormat, string> = {
  'eval-set': 'EvalSet ({eval_set_id, eval_cases, ...})',
  'named-legacy-list': 'named legacy list ([{name, data, initial_session}])',
  'flat-legacy-list': 'flat legacy list ([{query, expected_tool_use, reference}])',
}

type Attempt = { format: EvalSetFormat; issues: ParseIssue[] }

function attempt(format: EvalSetFormat, error: z.ZodError): Attempt {
  return { format, issues: readableIssues(error.issues) }
}

/** The format the document most looks like: its error is shown first and in full. */
function likelyFormat(json: unknown): EvalSetFormat {
  if (!Array.isArray(json)) return 'eval-set'
  const first: unknown = json[0]
  if (typeof first === 'object' && first !== null && ('data' in first || 'name' in first)) return 'named-legacy-list'
  return 'flat-legacy-list'
}

function camelHint(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined
  const found = CAMEL_EVAL_SET_KEYS.filter((k) => k in json)
  if (found.length === 0) return undefined
  return `hint: EvalSet's top-level keys must be snake_case (found ${found.join(', ')}); ADK rejects camelCase there`
}

function failure(json: unknown, attempts: Attempt[], source?: string): EvalStreamParseError {
  const likely = likelyFormat(json)
  attempts.sort((a, b) => Number(b.format === likely) - Number(a.format === likely))
  const lines = [`${subject('eval set', source)} does not match any format ADK reads. Tried:`]
  for (const a of attempts) {
    // The likely format gets its full list of problems; the others only their first one.
    const issues = a.format === likely ? a.issues : a.issues.slice(0, 1)
    lines.push(`- ${FORMAT_LABELS[a.format]}:`, issueLines(issues, '    '))
  }
  const hint = camelHint(json)
  if (hint) lines.push(hint)
  const issues = attempts.find((a) => a.format === likely)?.issues ?? []
  return { name: 'EvalStreamParseError', what: 'eval set', source, message: lines.join('\n'), issues }
}

/**
 * Parses an eval set in any format ADK reads; legacy formats are converted (see legacy.ts).
 * @example
 * const r = parseEvalSet(JSON.parse(text), { source: 'simple.test.json' })
 * if (r.ok) console.log(r.evalSet.eval_cases.length)
 * else console.error(r.error.message)
 */
export function parseEvalSet(json: unknown, options: ParseEvalSetOptions = {}): ParseEvalSetResult {
  const long = findLongList(json, MAX_EVAL_SET_LIST_ITEMS)
  if (long) {
    const problem =
      `too large to check: ${long.path} has ${long.items} items, more than MAX_EVAL_SET_LIST_ITEMS (${MAX_EVAL_SET_LIST_ITEMS}); split it into smaller eval sets`
    return { ok: false, error: simpleParseError('eval set', options.source, problem, long.path) }
  }
  try {
    return parseAnyFormat(json, options)
  } catch (e) {
    // zod's issue reporting recurses and spreads over every element: an eval set of a million bad
    // entries (it fits in a request body) overflows the stack there. That is bad input, not a crash.
    if (!(e instanceof RangeError)) throw e
    const problem = `too large to check (${e.message}); split it into smaller eval sets`
    return { ok: false, error: simpleParseError('eval set', options.source, problem) }
  }
}

function parseAnyFormat(json: unknown, options: ParseEvalSetOptions): ParseEvalSetResult {
  const reportInput = { reportInput: true }
  const asEvalSet = EvalSet.safeParse(json, reportInput)
  if (asEvalSet.success) return { ok: true, evalSet: asEvalSet.data, format: 'eval-set' }

  const { source, timestamp } = options
  const evalSetId = options.evalSetId ?? (source ? evalSetIdFromSource(source) : DEFAULT_EVAL_SET_ID)
  const asNamed = NamedLegacyList.safeParse(json, reportInput)
  if (asNamed.success) {
    const evalSet = convertNamedLegacy(asNamed.data, { evalSetId, timestamp })
    return { ok: true, evalSet, format: 'named-legacy-list' }
  }
  const asFlat = FlatLegacyList.safeParse(json, reportInput)
  if (asFlat.success) {
    const evalId = source ?? evalSetId
    const evalSet = convertFlatLegacy(asFlat.data, {
      evalSetId,
      evalId,
      timestamp,
      initialSession: options.initialSession,
    })
    return { ok: true, evalSet, format: 'flat-legacy-list' }
  }
  const attempts = [
    attempt('eval-set', asEvalSet.error),
    attempt('named-legacy-list', asNamed.error),
    attempt('flat-legacy-list', asFlat.error),
  ]
  return { ok: false, error: failure(json, attempts, source) }
}

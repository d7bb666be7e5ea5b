/**
 * Readable parse errors for ADK files. zod's issues are precise but written for programmers; a user
 * with a 2,000-line eval set needs the file, the JSON path (`$.eval_cases[0].conversation[1]...`),
 * what was expected and what was found, and nothing else: no stack, no dump of the whole input.
 */
import type * as z from 'zod'
import { jsonErrorOffset } from './json-position.ts'

/** One problem at one place in the document. */
export type ParseIssue = { path: string; message: string }

/** A document that did not parse, as a value (never thrown inside the library). */
export type EvalStreamParseError = {
  name: 'EvalStreamParseError'
  /** What was being read, e.g. 'eval set', 'eval config', 'eval set result'. */
  what: string
  /** The file or URL the document came from, when known. */
  source?: string
  /** Everything below, as one readable text (one problem per line). */
  message: string
  issues: ParseIssue[]
}

/** The success-or-error shape every parse function of src/adk returns. */
export type ParseFailure = { ok: false; error: EvalStreamParseError }

/** At most this many problems are listed in a message; the rest are counted. */
export const MAX_LISTED_ISSUES = 8
const MAX_SHOWN_STRING = 40

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * A zod path in JSONPath style.
 * @example formatPath(['eval_cases', 0, 'conversation']) // '$.eval_cases[0].conversation'
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '$'
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

/** A short description of a JSON value, for "received ...". */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the key is missing)'
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN_STRING ? `${value.slice(0, MAX_SHOWN_STRING)}...` : value
    return `the string ${JSON.stringify(shown)}`
  }
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}

type Issue = z.core.$ZodIssue

/** How far into the document a branch's issues reach: deeper means that branch matched more. */
function depth(issues: readonly Issue[]): number {
  let max = 0
  for (const issue of issues) {
    const extra = issue.code === 'invalid_union' ? Math.max(0, ...issue.errors.map(depth)) : 0
    max = Math.max(max, issue.path.length + extra)
  }
  return max
}

/** The union branch that got furthest: deepest issue, then fewest issues, then the first. */
function bestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] {
  let best: readonly Issue[] = branches[0] ?? []
  for (const branch of branches.slice(1)) {
    const [d, bestD] = [depth(branch), depth(best)]
    if (d > bestD || (d === bestD && branch.length < best.length)) best = branch
  }
  return best
}

function describeIssue(issue: Issue): string {
  const input = (issue as { input?: unknown }).input
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return `required field is missing (expected ${issue.expected})`
      return `expected ${issue.expected}, received ${describeValue(input)}`
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, received ${describeValue(input)}`
    case 'custom':
      return issue.message
    default:
      return input === undefined ? issue.message : `${issue.message} (received ${describeValue(input)})`
  }
}

/** Flattens zod issues into readable ones; a union failure shows only its most useful branch. */
export function readableIssues(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): ParseIssue[] {
  const out: ParseIssue[] = []
  for (const issue of issues) {
    const path = [...prefix, ...issue.path]
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      out.push(...readableIssues(bestBranch(issue.errors), path))
    } else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatPath([...path, key]), message: 'unknown key (ADK rejects unknown keys here)' })
      }
    } else {
      out.push({ path: formatPath(path), message: describeIssue(issue) })
    }
  }
  return out
}

/** "path: message" lines, at most MAX_LISTED_ISSUES of them. */
export function issueLines(issues: readonly ParseIssue[], indent = '  '): string {
  const lines = issues.slice(0, MAX_LISTED_ISSUES).map((i) => `${indent}${i.path}: ${i.message}`)
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`${indent}... and ${issues.length - MAX_LISTED_ISSUES} more`)
  return lines.join('\n')
}

/** "eval set file x.json" or "eval set" when there is no source. */
export function subject(what: string, source?: string): string {
  return source === undefined ? what : `${what} file ${source}`
}

/**
 * Builds the error value from a zod error.
 * @example
 * const r = EvalSet.safeParse(json, { reportInput: true })
 * if (!r.success) return { ok: false, error: parseErrorFromZod(r.error, 'eval set', 'x.json') }
 */
export function parseErrorFromZod(error: z.ZodError, what: string, source?: string, note?: string): EvalStreamParseError {
  const issues = readableIssues(error.issues)
  const head = `${subject(what, source)} is not valid:`
  const message = [head, issueLines(issues), ...(note ? [note] : [])].join('\n')
  return { name: 'EvalStreamParseError', what, source, message, issues }
}

/** An error with a single message, e.g. for bad JSON syntax or a missing file; `path` where in the value, if known. */
export function simpleParseError(what: string, source: string | undefined, problem: string, path = '$'): EvalStreamParseError {
  return {
    name: 'EvalStreamParseError',
    what,
    source,
    message: `${subject(what, source)}: ${problem}`,
    issues: [{ path, message: problem }],
  }
}

/**
 * The problems of a zod error on one line (for an HTTP problem `detail` or a NOT_EVALUATED reason).
 * @example describeZodError(error, { source: 'eval_case' }) // 'eval_case: $.eval_id: required field is missing (expected string)'
 */
export function describeZodError(error: z.ZodError, options: { source?: string } = {}): string {
  const issues = readableIssues(error.issues).slice(0, MAX_LISTED_ISSUES)
  const text = issues.map((i) => `${i.path}: ${i.message}`).join('; ')
  return options.source === undefined ? text : `${options.source}: ${text}`
}

/** Where a byte offset falls, 1-based, counting "\n" line breaks. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - before.lastIndexOf('\n') }
}

/**
 * JSON.parse with an error that says where: "not valid JSON at line 3 column 7 (...)".
 * A leading byte-order mark is skipped (editors on Windows add one).
 * @example parseJsonText('{"a": }', 'eval config', 'cfg.json') // { ok: false, error: { message: 'eval config file cfg.json: not valid JSON at line 1 column 7 ...' } }
 */
export function parseJsonText(text: string, what: string, source?: string): { ok: true; json: unknown } | ParseFailure {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text
  try {
    return { ok: true, json: JSON.parse(body) }
  } catch (error) {
    // Engines word the reason differently; keep V8's reason, but find the place ourselves.
    const reason = (error as Error).message.replace(/\s*(in JSON )?at position \d+.*$/, '')
    const offset = jsonErrorOffset(body)
    const where = offset === null ? undefined : lineColumn(body, offset)
    const problem = where ? `not valid JSON at line ${where.line} column ${where.column} (${reason})` : `not valid JSON (${reason})`
    return { ok: false, error: simpleParseError(what, source, problem) }
  }
}

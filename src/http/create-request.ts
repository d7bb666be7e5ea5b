/**
 * The body of `POST /v1/sessions`: either `{ eval_config?, eval_case?, session_id? }` or
 * `{ eval_set, eval_id, eval_config?, session_id? }`, which picks one case out of an ADK eval set.
 * The config and case stay raw JSON here: the engine factory validates them and words the problem.
 */
import { failure, type ProblemOf } from '../engine/problem.ts'
import { shareEvalCase } from '../engine/interned-cases.ts'
import * as z from 'zod'
import { lazySchema } from '../adk/lazy-schema.ts'
import type { SessionWebhook } from '../engine/types.ts'
import { EvalSet } from '../adk/eval-set.ts'
import { findJsonBoundsViolation } from '../adk/json-bounds.ts'
import { parseJsonWithin } from '../adk/json-within.ts'
import { parseErrorFromZod } from '../adk/parse-error.ts'
import { WEBHOOK_SECRET_MIN_CHARS } from '../export/webhook-config.ts'
import { WEBHOOK_MAX_URL_CHARS } from '../export/webhook-target.ts'
import { formatFromContentType, limitMember, limitName, type Limits } from '../ingest/index.ts'
import type { ProblemExtensions } from './problem.ts'
import { dropRefusedBody, readTextLimited } from './read-body.ts'

/**
 * Session ids appear in URLs and Durable Object names: keep them URL-safe and bounded. `.` and `..`
 * are refused: they are path segments that URL normalisation removes, so no URL could reach them.
 */
export const SESSION_ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9._~:-]{1,200}$/

export const CreateSessionRequest = lazySchema(() =>
  z
    .object({
      session_id: z
        .string()
        .regex(SESSION_ID_PATTERN, "must be 1-200 characters of A-Z a-z 0-9 . _ ~ : -, and not '.' or '..'")
        .optional(),
      eval_config: z.unknown().optional(),
      eval_case: z.unknown().optional(),
      eval_set: z.unknown().optional(),
      eval_id: z.string().optional(),
      /** This session's own webhook (docs/webhooks.md); the host checks the target and filter. */
      webhook: z
        .object({
          url: z.string().max(WEBHOOK_MAX_URL_CHARS),
          secret: z.string().min(WEBHOOK_SECRET_MIN_CHARS, `must be at least ${WEBHOOK_SECRET_MIN_CHARS} characters`).max(1024),
          filter: z.string().max(4096).optional(),
        })
        .strict()
        .describe(
          "This session's own webhook: each decided result matching `filter` is POSTed to `url`, signed with `secret` (docs/webhooks.md)",
        )
        .optional(),
    })
    .strict()
)
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>

/** What reading a create body can refuse. */
export type CreateProblem = ProblemOf<
  | 'unsupported_format'
  | 'broken_body'
  | 'request_too_large'
  | 'invalid_json'
  | 'json_out_of_bounds'
  | 'invalid_request'
  | 'invalid_eval_set'
  | 'eval_case_not_found'
>

/**
 * The create body as JSON, held to the limits before anything recursive (zod, the engine, the
 * Durable Object's JSON.stringify) sees it: a JSON Content-Type (or none), at most the request byte
 * limit (read as a stream, refused past it), nesting and strings within bounds.
 * @example const body = await parseCreateBody(c.req.raw, limits); if (!body.ok) return problem(c, body.problem)
 */
export async function parseCreateBody(
  request: Request,
  limits: Limits,
  /** What the body makes, for the 415 message. */
  what = 'a session',
): Promise<{ ok: true; value: unknown } | { ok: false; problem: CreateProblem }> {
  const type = request.headers.get('content-type')
  if (type !== null && formatFromContentType(type) !== 'json') {
    await dropRefusedBody(request)
    return bad(
      'unsupported_format',
      'Unsupported Media Type',
      `${what} is created from JSON: send Content-Type application/json, not '${type}'`,
    )
  }
  const read = await readTextLimited(request, limits.maxRequestBytes)
  if (!read.ok) {
    if (read.reason === 'broken') return bad('broken_body', 'Body could not be read', read.error)
    const detail = `the body is more than ${limits.maxRequestBytes} bytes (${limitName('maxRequestBytes', limits)})`
    return bad('request_too_large', 'Request body too large', detail, { limit: limitMember('maxRequestBytes', limits) })
  }
  if (read.text.trim() === '') return { ok: true, value: {} }
  // Bounds on the raw text first: a body out of bounds is refused without being parsed.
  const parsed = parseJsonWithin(read.text, limits)
  if (!parsed.ok && parsed.reason === 'invalid_json') {
    return bad('invalid_json', 'Invalid JSON', `the request body is not JSON: ${parsed.message}`)
  }
  const value = parsed.ok ? parsed.value : undefined
  const found = parsed.ok ? findJsonBoundsViolation(value, limits) : parsed.violation
  const at = !parsed.ok && parsed.reason === 'bounds' ? ` (at character ${parsed.violation.offset})` : ''
  if (found?.kind === 'depth') {
    return bad(
      'json_out_of_bounds',
      'JSON nested too deep',
      `${found.path}: nested more than ${limits.maxJsonDepth} levels deep (${limitName('maxJsonDepth', limits)})${at}`,
      { limit: limitMember('maxJsonDepth', limits), path: found.path },
    )
  }
  if (found?.kind === 'string') {
    return bad(
      'json_out_of_bounds',
      'JSON string too long',
      `${found.path}: a string of ${found.length} characters, more than ${limits.maxStringLength} (${
        limitName('maxStringLength', limits)
      })${at}`,
      { limit: limitMember('maxStringLength', limits), path: found.path },
    )
  }
  return { ok: true, value }
}

/**
 * Resolves the request to the spec's config and case, or a problem.
 * @example
 * resolveCreateRequest({ eval_case: c }) // { ok: true, eval_case: c, eval_config: undefined }
 */
export function resolveCreateRequest(
  body: unknown,
):
  | { ok: true; session_id?: string; eval_config?: unknown; eval_case?: unknown; webhook?: SessionWebhook }
  | { ok: false; problem: CreateProblem } {
  const parsed = CreateSessionRequest.safeParse(body ?? {})
  if (!parsed.success) {
    return bad('invalid_request', 'Invalid session request', parseErrorFromZod(parsed.error, 'session request').message)
  }
  const req = parsed.data
  if (req.eval_set === undefined && req.eval_id === undefined) {
    // Sessions of one case share one copy of it as sent (interned-cases.ts).
    return {
      ok: true,
      session_id: req.session_id,
      eval_config: req.eval_config,
      eval_case: shareEvalCase(req.eval_case),
      ...webhookField(req),
    }
  }
  if (req.eval_case !== undefined) {
    return bad('invalid_request', 'Invalid session request', 'give either eval_case, or eval_set with eval_id, not both')
  }
  if (req.eval_set === undefined || req.eval_id === undefined) {
    return bad('invalid_request', 'Invalid session request', 'eval_set and eval_id go together: eval_id names a case of eval_set')
  }
  const set = EvalSet.safeParse(req.eval_set)
  if (!set.success) return bad('invalid_eval_set', 'Invalid eval_set', parseErrorFromZod(set.error, 'eval_set').message)
  const index = set.data.eval_cases.findIndex((c) => c.eval_id === req.eval_id)
  if (index < 0) {
    const ids = set.data.eval_cases.map((c) => `'${c.eval_id}'`).join(', ')
    return bad(
      'eval_case_not_found',
      'Eval case not found',
      `eval_set has no case with eval_id '${req.eval_id}' (it has: ${ids || 'none'})`,
    )
  }
  // Hand the engine the case as the user wrote it, so its own validation and messages apply.
  const rawCase = (req.eval_set as { eval_cases: unknown[] }).eval_cases[index]
  return { ok: true, session_id: req.session_id, eval_config: req.eval_config, eval_case: shareEvalCase(rawCase), ...webhookField(req) }
}

function webhookField(req: CreateSessionRequest): { webhook?: SessionWebhook } {
  return req.webhook ? { webhook: req.webhook } : {}
}

function bad(code: CreateProblem['code'], title: string, detail: string, extensions?: ProblemExtensions) {
  return failure(code, title, detail, extensions ? { extensions } : {})
}

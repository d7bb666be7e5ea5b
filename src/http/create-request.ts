/**
 * The body of `POST /v1/sessions`: either `{ eval_config?, eval_case?, session_id? }` or
 * `{ eval_set, eval_id, eval_config?, session_id? }`, which picks one case out of an ADK eval set.
 * The config and case stay raw JSON here: the engine factory validates them and words the problem.
 */
import { z } from 'zod'
import { EvalSet } from '../adk/eval-set.ts'
import { parseErrorFromZod } from '../adk/parse-error.ts'

/** Session ids appear in URLs and Durable Object names: keep them URL-safe and bounded. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._~:-]{1,200}$/

export const CreateSessionRequest = z
  .object({
    session_id: z
      .string()
      .regex(SESSION_ID_PATTERN, 'must be 1-200 characters of A-Z a-z 0-9 . _ ~ : -')
      .optional(),
    eval_config: z.unknown().optional(),
    eval_case: z.unknown().optional(),
    eval_set: z.unknown().optional(),
    eval_id: z.string().optional(),
  })
  .strict()
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>

export type CreateProblem = { status: 400 | 404 | 422; title: string; detail: string }

/**
 * Resolves the request to the spec's config and case, or a problem.
 * @example
 * resolveCreateRequest({ eval_case: c }) // { ok: true, eval_case: c, eval_config: undefined }
 */
export function resolveCreateRequest(
  body: unknown,
): { ok: true; session_id?: string; eval_config?: unknown; eval_case?: unknown } | { ok: false; problem: CreateProblem } {
  const parsed = CreateSessionRequest.safeParse(body ?? {})
  if (!parsed.success)
    return bad(400, 'Invalid session request', parseErrorFromZod(parsed.error, 'session request').message)
  const req = parsed.data
  if (req.eval_set === undefined && req.eval_id === undefined)
    return { ok: true, session_id: req.session_id, eval_config: req.eval_config, eval_case: req.eval_case }
  if (req.eval_case !== undefined)
    return bad(400, 'Invalid session request', 'give either eval_case, or eval_set with eval_id, not both')
  if (req.eval_set === undefined || req.eval_id === undefined)
    return bad(400, 'Invalid session request', 'eval_set and eval_id go together: eval_id names a case of eval_set')
  const set = EvalSet.safeParse(req.eval_set)
  if (!set.success) return bad(422, 'Invalid eval_set', parseErrorFromZod(set.error, 'eval_set').message)
  const index = set.data.eval_cases.findIndex((c) => c.eval_id === req.eval_id)
  if (index < 0) {
    const ids = set.data.eval_cases.map((c) => `'${c.eval_id}'`).join(', ')
    return bad(404, 'Eval case not found', `eval_set has no case with eval_id '${req.eval_id}' (it has: ${ids || 'none'})`)
  }
  // Hand the engine the case as the user wrote it, so its own validation and messages apply.
  const rawCase = (req.eval_set as { eval_cases: unknown[] }).eval_cases[index]
  return { ok: true, session_id: req.session_id, eval_config: req.eval_config, eval_case: rawCase }
}

function bad(status: CreateProblem['status'], title: string, detail: string) {
  return { ok: false as const, problem: { status, title, detail } }
}

/**
 * Building a JudgeRequest from a prompt and the criterion's judge options, with its stable id.
 */
import type { Assessment, JudgeRequest } from '../criterion.ts'
import type { JudgeModelOptions } from './options.ts'
import { judgeRequestId } from './request-id.ts'

export type RequestSpec = {
  metric: string
  /** InvocationContext.key: identifies the session, invocation and metric. */
  invocationKey: string
  /** Which call of this invocation ("verdict", "segment-0", ...). */
  step: string
  systemInstruction: string
  prompt: string
  responseJsonSchema: Record<string, unknown>
  options: JudgeModelOptions
  /** num_samples, or 1 where ADK ignores it (hallucinations_v1). */
  samples: number
  decided?: (texts: string[]) => boolean
  /** What the request judges, for judge services that make that judgement themselves. */
  assessment?: Assessment
}

/**
 * @example
 * judgeRequest({ metric: 'final_response_match_v2', invocationKey: 's/0', step: 'verdict', systemInstruction: 'sys',
 *   prompt: 'p', responseJsonSchema: {}, options: JudgeModelOptions.parse({}), samples: 5 }).model // 'gemini-2.5-flash'
 */
export function judgeRequest(spec: RequestSpec): JudgeRequest {
  const request: JudgeRequest = {
    id: judgeRequestId(spec.metric, spec.invocationKey, spec.step, `${spec.systemInstruction}\n\n${spec.prompt}`),
    model: spec.options.judge_model,
    systemInstruction: spec.systemInstruction,
    prompt: spec.prompt,
    responseJsonSchema: spec.responseJsonSchema,
    samples: spec.samples,
  }
  if (spec.options.judge_model_config) request.modelConfig = spec.options.judge_model_config
  if (spec.decided) request.decided = spec.decided
  if (spec.assessment) request.assessment = spec.assessment
  return request
}

/** An outcome that needs no judge: a score, or null with the reason. */
export function scoreOutcome(score: number | null, reason: string | undefined, details?: Record<string, unknown>) {
  return {
    kind: 'score' as const,
    result: {
      score,
      ...(score === null ? { reason: reason ?? 'not evaluated' } : {}),
      ...(details ? { details } : {}),
    },
  }
}

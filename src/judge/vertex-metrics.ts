/**
 * Where a Vertex-only assessment goes (response_evaluation_score's coherence, the multi_turn_*_v1
 * conversations): to Vertex AI's evaluation service when a project and location are configured,
 * as ADK does. Without Vertex it is not judged (an error sample: NOT_EVALUATED with the reason),
 * unless the operator opted in to evalstream's own judge (EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream):
 * then the request's own prompt goes to its judge_model like any request, and the criterion labels
 * the result `judge: "evalstream"`. Every other request passes through to `inner`.
 */
import type { JudgeRequest } from '../core/criterion.ts'
import type { Judge, JudgeCallOptions, JudgeReply } from './port.ts'
import { askVertex, type VertexEvalOptions } from './vertex-eval.ts'

export type VertexMetricsMode = 'vertex' | 'evalstream'

/** The reason a Vertex metric is not evaluated when Vertex is not configured and the operator did not opt in. */
export const VERTEX_NOT_CONFIGURED =
  "this metric is computed by Vertex AI's evaluation service, which is not configured: set GOOGLE_CLOUD_PROJECT and " +
  'GOOGLE_CLOUD_LOCATION with GOOGLE_SERVICE_ACCOUNT_JSON, GOOGLE_CLOUD_ACCESS_TOKEN or GOOGLE_API_KEY; or set ' +
  "EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream for evalstream's own judge (results labelled judge: evalstream)"

function vertexOnly(request: JudgeRequest): boolean {
  const kind = request.assessment?.kind
  return kind === 'coherence' || kind === 'conversation'
}

/**
 * @example
 * const judge = withVertexMetrics(inner, { vertex: { project, location, auth }, mode: 'vertex' })
 */
export function withVertexMetrics(inner: Judge | undefined, options: { vertex?: VertexEvalOptions; mode: VertexMetricsMode }): Judge {
  const noJudge = (request: JudgeRequest, error: string): JudgeReply => ({ id: request.id, samples: [{ error }] })
  return {
    async answer(request, opts: JudgeCallOptions): Promise<JudgeReply> {
      opts.signal?.throwIfAborted()
      if (vertexOnly(request)) {
        const assessment = request.assessment as NonNullable<JudgeRequest['assessment']>
        if (options.vertex) return askVertex(request.id, assessment, options.vertex, opts)
        if (options.mode !== 'evalstream') return noJudge(request, VERTEX_NOT_CONFIGURED)
      }
      if (!inner) return noJudge(request, `no judge model is configured for judge_model '${request.model}'`)
      return inner.answer(request, opts)
    },
  }
}

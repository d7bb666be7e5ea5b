/**
 * ADK's EvalStatus. Files store the numbers (PASSED=1, FAILED=2, NOT_EVALUATED=3); evalstream's own
 * JSON (SSE results, CLI --json summaries) uses the names, which read better in a stream.
 */
export const EVAL_STATUS_CODE = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3 } as const
export type EvalStatus = keyof typeof EVAL_STATUS_CODE

/** ADK's threshold rule: `score >= threshold` passes; no score is NOT_EVALUATED. */
export function statusFor(score: number | null | undefined, threshold: number): EvalStatus {
  if (score === null || score === undefined || Number.isNaN(score)) return 'NOT_EVALUATED'
  return score >= threshold ? 'PASSED' : 'FAILED'
}

export function statusFromCode(code: number): EvalStatus {
  if (code === 1) return 'PASSED'
  if (code === 2) return 'FAILED'
  return 'NOT_EVALUATED'
}

/**
 * ADK's case status across metrics, walked in config order: the first FAILED decides, a PASSED
 * makes the case PASSED, NOT_EVALUATED is skipped; all NOT_EVALUATED stays NOT_EVALUATED.
 */
export function caseStatus(metricStatuses: readonly EvalStatus[]): EvalStatus {
  let status: EvalStatus = 'NOT_EVALUATED'
  for (const s of metricStatuses) {
    if (s === 'FAILED') return 'FAILED'
    if (s === 'PASSED') status = 'PASSED'
  }
  return status
}

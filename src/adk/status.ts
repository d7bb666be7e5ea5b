/**
 * ADK's EvalStatus and its rules (threshold, case status): part of ADK's data model, so it lives in
 * src/adk, which imports nothing above it. Files store the numbers (PASSED=1, FAILED=2,
 * NOT_EVALUATED=3); evalstream's own JSON (SSE results, CLI --json summaries) uses the names, which
 * read better in a stream.
 */
export const EVAL_STATUS_CODE = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3 } as const
export type EvalStatus = keyof typeof EVAL_STATUS_CODE

/**
 * ADK's number for a status name, as its result files write it; anything unknown is NOT_EVALUATED (3).
 * @example statusCode('FAILED') // 2
 */
export function statusCode(name: string): number {
  return Object.hasOwn(EVAL_STATUS_CODE, name) ? EVAL_STATUS_CODE[name as EvalStatus] : EVAL_STATUS_CODE.NOT_EVALUATED
}

/**
 * ADK's threshold rule: `score >= threshold` passes; no score is NOT_EVALUATED.
 * @example statusFor(0.5, 0.5) // 'PASSED'
 */
export function statusFor(score: number | null | undefined, threshold: number): EvalStatus {
  if (score === null || score === undefined || Number.isNaN(score)) return 'NOT_EVALUATED'
  return score >= threshold ? 'PASSED' : 'FAILED'
}

/**
 * The status a file's number stands for (anything but 1 or 2 is NOT_EVALUATED).
 * @example statusFromCode(2) // 'FAILED'
 */
export function statusFromCode(code: number): EvalStatus {
  if (code === 1) return 'PASSED'
  if (code === 2) return 'FAILED'
  return 'NOT_EVALUATED'
}

/**
 * ADK's case status across metrics, walked in config order: the first FAILED decides, a PASSED
 * makes the case PASSED, NOT_EVALUATED is skipped; all NOT_EVALUATED stays NOT_EVALUATED.
 * @example caseStatus(['NOT_EVALUATED', 'PASSED']) // 'PASSED'
 */
export function caseStatus(metricStatuses: readonly EvalStatus[]): EvalStatus {
  let status: EvalStatus = 'NOT_EVALUATED'
  for (const s of metricStatuses) {
    if (s === 'FAILED') return 'FAILED'
    if (s === 'PASSED') status = 'PASSED'
  }
  return status
}

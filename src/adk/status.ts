/**
 * ADK's EvalStatus and its rules (threshold, case status): part of ADK's data model, so it lives in
 * src/adk, which imports nothing above it. Files store the numbers (PASSED=1, FAILED=2,
 * NOT_EVALUATED=3, INFORMATIONAL=4); evalstream's own JSON (SSE results, CLI --json summaries) uses
 * the names, which read better in a stream.
 *
 * INFORMATIONAL is newer ADK's status of the efficiency metrics (tool_call_count_v1, ...): a value
 * was computed and reported, but it neither passes nor fails a case. ADK 2.0 has no 4 in its enum;
 * the ADK versions that report efficiency metrics write exactly this (docs/adk-parity.md).
 */
export const EVAL_STATUS_CODE = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3, INFORMATIONAL: 4 } as const
export type EvalStatus = keyof typeof EVAL_STATUS_CODE
/** What a whole case can end as: INFORMATIONAL metrics never decide it. */
export type CaseStatus = Exclude<EvalStatus, 'INFORMATIONAL'>

/**
 * ADK's number for a status name, as its result files write it; anything unknown is NOT_EVALUATED (3).
 * @example statusCode('FAILED') // 2
 */
export function statusCode(name: string): number {
  return Object.hasOwn(EVAL_STATUS_CODE, name) ? EVAL_STATUS_CODE[name as EvalStatus] : EVAL_STATUS_CODE.NOT_EVALUATED
}

/**
 * ADK's threshold rule: `score >= threshold` passes; no score is NOT_EVALUATED. A metric without a
 * threshold (the always-reported efficiency metrics) is INFORMATIONAL, with or without a value.
 * @example statusFor(0.5, 0.5) // 'PASSED'
 * @example statusFor(3, null) // 'INFORMATIONAL'
 */
export function statusFor(score: number | null | undefined, threshold: number | null): EvalStatus {
  if (threshold === null) return 'INFORMATIONAL'
  if (score === null || score === undefined || Number.isNaN(score)) return 'NOT_EVALUATED'
  return score >= threshold ? 'PASSED' : 'FAILED'
}

/**
 * The status a file's number stands for (anything but 1, 2 or 4 is NOT_EVALUATED).
 * @example statusFromCode(2) // 'FAILED'
 */
export function statusFromCode(code: number): EvalStatus {
  if (code === 1) return 'PASSED'
  if (code === 2) return 'FAILED'
  if (code === 4) return 'INFORMATIONAL'
  return 'NOT_EVALUATED'
}

/**
 * ADK's case status across metrics, walked in config order: the first FAILED decides, a PASSED
 * makes the case PASSED, NOT_EVALUATED and INFORMATIONAL are skipped; all skipped stays NOT_EVALUATED.
 * @example caseStatus(['NOT_EVALUATED', 'PASSED']) // 'PASSED'
 */
export function caseStatus(metricStatuses: readonly EvalStatus[]): CaseStatus {
  let status: CaseStatus = 'NOT_EVALUATED'
  for (const s of metricStatuses) {
    if (s === 'FAILED') return 'FAILED'
    if (s === 'PASSED') status = 'PASSED'
  }
  return status
}

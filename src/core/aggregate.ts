/**
 * Per-invocation scores -> a metric's overall score, the way each ADK evaluator does it (spec §2).
 *
 * ADK computes its means two ways and the last bit can differ between them, so both are here:
 * - `floatMean`: a loop `total += score` then `total / n` (TrajectoryEvaluator, RougeEvaluator,
 *   the Vertex facade behind safety_v1, final_response_match_v2);
 * - `exactMean`: Python's `statistics.mean`, the exact mean rounded once (rubric metrics,
 *   hallucinations_v1).
 */
import type { InvocationScore, OverallScore } from './criterion.ts'
import { type EvalStatus, statusFor } from '../adk/status.ts'

type WithThreshold = { threshold: number }

/** A score that counts: present and a real number. */
function hasScore(score: number | null | undefined): score is number {
  return typeof score === 'number' && !Number.isNaN(score)
}

/**
 * Mean as an ADK evaluator loop computes it: add left to right in floating point, divide once.
 * @example floatMean([0.1, 0.2, 0.3]) // 0.20000000000000004
 */
export function floatMean(values: readonly number[]): number | null {
  if (values.length === 0) return null
  let total = 0
  for (const v of values) total += v
  return total / values.length
}

/** A finite double as sign * mantissa * 2^exponent, all exact. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const hi = view.getUint32(0)
  const lo = view.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  if (biased !== 0) mantissa |= 1n << 52n
  const exponent = (biased === 0 ? 1 : biased) - 1075
  return { mantissa: hi >>> 31 ? -mantissa : mantissa, exponent }
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length
}

/**
 * Python's `statistics.mean` on floats: the exact sum divided by n, rounded once to the nearest
 * double (ties to even). Non-finite inputs fall back to floating point, as Python's result is then
 * inf or nan anyway.
 * @example exactMean([0.1, 0.2, 0.3]) // 0.2
 */
export function exactMean(values: readonly number[]): number | null {
  if (values.length === 0) return null
  if (!values.every(Number.isFinite)) return floatMean(values)
  const parts = values.filter((v) => v !== 0).map(decompose)
  if (parts.length === 0) return 0
  let minExp = Infinity
  for (const p of parts) if (p.exponent < minExp) minExp = p.exponent
  let total = 0n
  for (const p of parts) total += p.mantissa << BigInt(p.exponent - minExp)
  if (total === 0n) return 0
  const negative = total < 0n
  const numerator = negative ? -total : total
  const divisor = BigInt(values.length)
  // Keep at least 56 quotient bits (53 + guard + round + sticky), then let Number() round once.
  const shift = Math.max(0, 56 - (bitLength(numerator) - bitLength(divisor)))
  const scaled = numerator << BigInt(shift)
  let quotient = scaled / divisor
  if (scaled % divisor !== 0n) quotient |= 1n // sticky bit: the division was inexact
  // Scaling by a power of two is exact for normal results (scores are never subnormal).
  const result = Number(quotient) * 2 ** (minExp - shift)
  return negative ? -result : result
}

/**
 * An invocation's status: its own if the criterion set one, else ADK's `score >= threshold`.
 * @example invocationStatus({ score: 0.5 }, 0.5) // 'PASSED'
 */
export function invocationStatus(result: InvocationScore, threshold: number): EvalStatus {
  return result.status ?? statusFor(result.score, threshold)
}

function overall(score: number | null, threshold: number, reason: string, details?: Record<string, unknown>): OverallScore {
  const result: OverallScore = score === null
    ? { score: null, status: 'NOT_EVALUATED', reason }
    : { score, status: statusFor(score, threshold) }
  if (details) result.details = details
  return result
}

/**
 * ADK's default: the mean (`floatMean`) of the invocations that have a score; none -> NOT_EVALUATED.
 * @example meanAggregate([{ score: 1 }, { score: 0 }, { score: null, reason: 'x' }], { threshold: 0.5 })
 * // { score: 0.5, status: 'PASSED' }
 */
export function meanAggregate(scores: readonly InvocationScore[], config: WithThreshold): OverallScore {
  const values = scores.map((s) => s.score).filter(hasScore)
  const reason = scores.length === 0 ? 'there were no invocations to score' : 'no invocation could be scored'
  return overall(floatMean(values), config.threshold, reason)
}

/**
 * Like `meanAggregate` with `statistics.mean` (hallucinations_v1).
 * @example exactMeanAggregate([{ score: 0.1 }, { score: 0.2 }, { score: 0.3 }], { threshold: 0.2 }).score // 0.2
 */
export function exactMeanAggregate(scores: readonly InvocationScore[], config: WithThreshold): OverallScore {
  const values = scores.map((s) => s.score).filter(hasScore)
  const reason = scores.length === 0 ? 'there were no invocations to score' : 'no invocation could be scored'
  return overall(exactMean(values), config.threshold, reason)
}

/**
 * final_response_match_v2: the mean over invocations with a score whose status is not
 * NOT_EVALUATED. With none, ADK 2.0 divides by zero and its eval service reports NOT_EVALUATED;
 * here that is a plain NOT_EVALUATED with the reason.
 * @example evaluatedOnlyMeanAggregate([{ score: 1 }, { score: 9, status: 'NOT_EVALUATED' }], { threshold: 1 }).score // 1
 */
export function evaluatedOnlyMeanAggregate(scores: readonly InvocationScore[], config: WithThreshold): OverallScore {
  const values: number[] = []
  for (const s of scores) {
    if (hasScore(s.score) && invocationStatus(s, config.threshold) !== 'NOT_EVALUATED') values.push(s.score)
  }
  const reason = 'no invocation was evaluated (every judge answer was unusable)'
  return overall(floatMean(values), config.threshold, reason)
}

/** One rubric's verdict in one invocation, as ADK's RubricScore. */
export type RubricScore = { rubric_id: string; rationale?: string | null; score?: number | null }

/** Why an overall rubric score carries no judge rationale. */
export const AGGREGATED_RUBRIC_RATIONALE = 'Mean over the invocations; each invocation keeps the rationale the judge gave for it.'

/**
 * Rubric metrics: the overall score is the mean of ALL (invocation x rubric) scores, flattened,
 * not the mean of per-invocation means. Per-invocation rubric scores are read from
 * `details.rubric_scores`; `details.overall_rubric_scores` gets each rubric's mean (null if it
 * never got a score), in first-seen order.
 * @example
 * rubricFlattenedAggregate([
 *   { score: 1, details: { rubric_scores: [{ rubric_id: 'a', score: 1 }] } },
 *   { score: 0, details: { rubric_scores: [{ rubric_id: 'a', score: 0 }, { rubric_id: 'b', score: 0 }] } },
 * ], { threshold: 0.5 }).score // 1/3, where the mean of invocation scores would be 0.5
 */
export function rubricFlattenedAggregate(scores: readonly InvocationScore[], config: WithThreshold): OverallScore {
  const all: number[] = []
  const byId = new Map<string, number[]>()
  for (const s of scores) {
    const rubricScores = (s.details?.rubric_scores ?? []) as readonly RubricScore[]
    for (const r of rubricScores) {
      let list = byId.get(r.rubric_id)
      if (!list) byId.set(r.rubric_id, list = [])
      if (hasScore(r.score)) {
        list.push(r.score)
        all.push(r.score)
      }
    }
  }
  const overallRubricScores: RubricScore[] = [...byId].map(([rubric_id, values]) => ({
    rubric_id,
    score: exactMean(values),
    rationale: AGGREGATED_RUBRIC_RATIONALE,
  }))
  const reason = 'no rubric got a usable verdict in any invocation'
  return overall(exactMean(all), config.threshold, reason, { overall_rubric_scores: overallRubricScores })
}

/**
 * The per-invocation results ADK reports for a metric: each with its status resolved, and all
 * blanked to null / NOT_EVALUATED when the metric's overall status is NOT_EVALUATED (spec §3,
 * issue #6725: LocalEvalService drops per-invocation values of a metric it could not evaluate).
 * @example perInvocationResults([{ score: 1 }], { score: null, status: 'NOT_EVALUATED', reason: 'r' }, 0.5)
 * // [{ score: null, status: 'NOT_EVALUATED', reason: 'r' }]
 */
export function perInvocationResults(
  scores: readonly InvocationScore[],
  overallScore: OverallScore,
  threshold: number,
): Array<InvocationScore & { status: EvalStatus }> {
  if (overallScore.status === 'NOT_EVALUATED') {
    const reason = overallScore.reason ?? 'the metric was not evaluated'
    return scores.map(() => ({ score: null, status: 'NOT_EVALUATED', reason }))
  }
  return scores.map((s) => ({ ...s, status: invocationStatus(s, threshold) }))
}

/**
 * Every criterion evalstream implements, by ADK metric name. The engine, the CLI and
 * `GET /v1/criteria` read this one table; nothing else branches on a criterion's name.
 */
import { z } from 'zod'
import type { AnyCriterion } from './criterion.ts'
import { finalResponseMatchV2 } from './criteria/final-response-match-v2/criterion.ts'
import { hallucinationsV1 } from './criteria/hallucinations/criterion.ts'
import { perTurnUserSimulatorQualityV1 } from './criteria/per-turn-user-simulator-quality/criterion.ts'
import { responseMatchScore } from './criteria/response-match.ts'
import { rubricBasedFinalResponseQualityV1 } from './criteria/rubric-final-response-quality/criterion.ts'
import { rubricBasedToolUseQualityV1 } from './criteria/rubric-tool-use-quality/criterion.ts'
import { safetyV1 } from './criteria/safety/criterion.ts'
import { toolTrajectoryAvgScore } from './criteria/tool-trajectory.ts'

/** ADK's seven evaluation criteria, in the order ADK's docs list them. */
const CRITERIA: readonly AnyCriterion[] = [
  toolTrajectoryAvgScore,
  responseMatchScore,
  finalResponseMatchV2,
  rubricBasedFinalResponseQualityV1,
  rubricBasedToolUseQualityV1,
  hallucinationsV1,
  safetyV1,
  perTurnUserSimulatorQualityV1,
]

const BY_NAME = new Map(CRITERIA.map((c) => [c.key, c]))

export function criterionByName(name: string): AnyCriterion | undefined {
  return BY_NAME.get(name)
}

export type CatalogueEntry = {
  name: string
  description: string
  reference_based: boolean
  judged: boolean
  /** JSON schema of the criterion's EvalConfig entry. */
  config_schema: unknown
}

/** The catalogue served at GET /v1/criteria. */
export function criteriaCatalogue(): CatalogueEntry[] {
  return CRITERIA.map((c) => ({
    name: c.key,
    description: c.description,
    reference_based: c.needsExpected,
    judged: c.judged,
    config_schema: safeJsonSchema(c.config),
  }))
}

function safeJsonSchema(schema: z.ZodType): unknown {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  } catch {
    return {}
  }
}

// Issue 8: ADK's informational efficiency metrics, always reported after the configured ones, and
// the ADK metric names accepted without being implemented. Appended apart from the table above so
// criteria added there concurrently merge cleanly.
import { inferenceCallCountV1 } from './criteria/inference-call-count.ts'
import { invocationDurationV1 } from './criteria/invocation-duration.ts'
import { tokenUsageV1 } from './criteria/token-usage.ts'
import { toolCallCountV1 } from './criteria/tool-call-count.ts'
export { notImplementedReason } from './criteria/adk-other-metrics.ts'

/** ADK's efficiency metrics, in the order they are reported. */
const ALWAYS_REPORTED: readonly AnyCriterion[] = [toolCallCountV1, inferenceCallCountV1, tokenUsageV1, invocationDurationV1]
for (const criterion of ALWAYS_REPORTED) {
  ;(CRITERIA as AnyCriterion[]).push(criterion)
  BY_NAME.set(criterion.key, criterion)
}

/**
 * The criteria every session reports without configuration (status INFORMATIONAL), in order.
 * @example alwaysReportedCriteria().map((c) => c.key) // ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']
 */
export function alwaysReportedCriteria(): readonly AnyCriterion[] {
  return ALWAYS_REPORTED
}

/**
 * Every criterion evalstream implements, by ADK metric name. The engine, the CLI and
 * `GET /v1/criteria` read this one table; nothing else branches on a criterion's name.
 */
import { z } from 'zod'
import type { AnyCriterion } from './criterion.ts'
import { finalResponseMatchV2 } from './criteria/final-response-match-v2.ts'
import { hallucinationsV1 } from './criteria/hallucinations.ts'
import { perTurnUserSimulatorQualityV1 } from './criteria/per-turn-user-simulator-quality.ts'
import { responseMatchScore } from './criteria/response-match.ts'
import { rubricBasedFinalResponseQualityV1 } from './criteria/rubric-final-response-quality.ts'
import { rubricBasedToolUseQualityV1 } from './criteria/rubric-tool-use-quality.ts'
import { safetyV1 } from './criteria/safety.ts'
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

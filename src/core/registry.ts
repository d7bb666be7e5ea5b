/**
 * Every criterion evalstream implements, by ADK metric name. The engine, the CLI and
 * `GET /v1/criteria` read this one table; nothing else branches on a criterion's name.
 */
import { z } from 'zod'
import type { AnyCriterion } from './criterion.ts'
import { toolTrajectoryAvgScore } from './criteria/tool-trajectory.ts'
import { responseMatchScore } from './criteria/response-match.ts'

const CRITERIA: readonly AnyCriterion[] = [toolTrajectoryAvgScore, responseMatchScore]

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

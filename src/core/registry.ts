/**
 * Every criterion evalstream implements, by ADK metric name, in one table. The engine, the CLI and
 * `GET /v1/criteria` read it; nothing else branches on a criterion's name.
 *
 * Where a criterion lives: a judged criterion is a folder under `criteria/<name>/` holding its
 * criterion, its prompt(s) and the parsers of its judge's answers, because those change together; a
 * criterion without a judge is one file under `criteria/` (the four efficiency metrics share
 * `criteria/efficiency.ts`). What several judged criteria share (options, requests, answers, votes,
 * the rubric machinery) is in `judging/`.
 */
import * as z from 'zod'
import type { AnyCriterion } from './criterion.ts'
import { responseEvaluationScore } from './criteria/response-evaluation/criterion.ts'
import { multiTurnTaskSuccessV1, multiTurnToolUseQualityV1, multiTurnTrajectoryQualityV1 } from './criteria/vertex-multi-turn/criterion.ts'
import { finalResponseMatchV2 } from './criteria/final-response-match-v2/criterion.ts'
import { hallucinationsV1 } from './criteria/hallucinations/criterion.ts'
import { inferenceCallCountV1 } from './criteria/inference-call-count.ts'
import { invocationDurationV1 } from './criteria/invocation-duration.ts'
import { perTurnUserSimulatorQualityV1 } from './criteria/per-turn-user-simulator-quality/criterion.ts'
import { responseMatchScore } from './criteria/response-match.ts'
import { rubricBasedMultiTurnTrajectoryQualityV1 } from './criteria/rubric-multi-turn-trajectory-quality/criterion.ts'
import { rubricBasedFinalResponseQualityV1 } from './criteria/rubric-final-response-quality/criterion.ts'
import { rubricBasedToolUseQualityV1 } from './criteria/rubric-tool-use-quality/criterion.ts'
import { safetyV1 } from './criteria/safety/criterion.ts'
import { tokenUsageV1 } from './criteria/token-usage.ts'
import { toolCallCountV1 } from './criteria/tool-call-count.ts'
import { toolTrajectoryAvgScore } from './criteria/tool-trajectory.ts'

/**
 * When a session reports a criterion: when its EvalConfig lists it, or always (ADK's informational
 * efficiency metrics, reported after the configured ones and never listed in a config).
 */
type Reported = 'when configured' | 'always'

/**
 * ADK's 13 evaluation metrics (its docs' criteria, the conversation-level rubric metric, the three
 * Vertex multi-turn metrics), then ADK's four efficiency metrics in the order they are reported:
 * the 17 names of ADK's metric registry.
 */
const CRITERIA: readonly { criterion: AnyCriterion; reported: Reported }[] = [
  { criterion: toolTrajectoryAvgScore, reported: 'when configured' },
  { criterion: responseMatchScore, reported: 'when configured' },
  { criterion: responseEvaluationScore, reported: 'when configured' },
  { criterion: finalResponseMatchV2, reported: 'when configured' },
  { criterion: rubricBasedFinalResponseQualityV1, reported: 'when configured' },
  { criterion: rubricBasedToolUseQualityV1, reported: 'when configured' },
  { criterion: hallucinationsV1, reported: 'when configured' },
  { criterion: safetyV1, reported: 'when configured' },
  { criterion: perTurnUserSimulatorQualityV1, reported: 'when configured' },
  { criterion: rubricBasedMultiTurnTrajectoryQualityV1, reported: 'when configured' },
  { criterion: multiTurnTaskSuccessV1, reported: 'when configured' },
  { criterion: multiTurnTrajectoryQualityV1, reported: 'when configured' },
  { criterion: multiTurnToolUseQualityV1, reported: 'when configured' },
  { criterion: toolCallCountV1, reported: 'always' },
  { criterion: inferenceCallCountV1, reported: 'always' },
  { criterion: tokenUsageV1, reported: 'always' },
  { criterion: invocationDurationV1, reported: 'always' },
]

const BY_NAME = new Map(CRITERIA.map(({ criterion }) => [criterion.key, criterion]))
const ALWAYS_REPORTED = CRITERIA.filter((e) => e.reported === 'always').map((e) => e.criterion)

export function criterionByName(name: string): AnyCriterion | undefined {
  return BY_NAME.get(name)
}

export type CatalogueEntry = {
  name: string
  description: string
  reference_based: boolean
  judged: boolean
  /** Reported on every session with no threshold (status INFORMATIONAL); configuring it is an error. */
  informational: boolean
  /** Where its scores lie (ADK's metric_info interval); null for informational metrics, which take no threshold. */
  interval: { min_value: number; max_value: number } | null
  /** JSON schema of the criterion's EvalConfig entry. */
  config_schema: unknown
}

/** The catalogue served at GET /v1/criteria. */
export function criteriaCatalogue(): CatalogueEntry[] {
  return CRITERIA.map(({ criterion: c, reported }) => ({
    name: c.key,
    description: c.description,
    reference_based: c.needsExpected,
    judged: c.judged,
    informational: reported === 'always',
    interval: reported === 'always' ? null : { min_value: c.scoreRange?.min ?? 0, max_value: c.scoreRange?.max ?? 1 },
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

/**
 * The criteria every session reports without configuration (status INFORMATIONAL), in order.
 * @example alwaysReportedCriteria().map((c) => c.key) // ['tool_call_count_v1', 'inference_call_count_v1', 'token_usage_v1', 'invocation_duration_v1']
 */
export function alwaysReportedCriteria(): readonly AnyCriterion[] {
  return ALWAYS_REPORTED
}

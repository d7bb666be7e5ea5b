/**
 * The judge options every LLM-judged ADK criterion carries (`judge_model_options`, spec §1.4), the
 * fields every judged criterion's config has, and the config both rubric criteria share; a config
 * only one criterion has lives with that criterion. Criteria are loose objects: ADK keeps unknown keys of a
 * criterion (`extra="allow"`), and so do we.
 */
import * as z from 'zod'
import { lazyAdkObject } from '../../adk/casing.ts'
import { Rubric } from '../../adk/invocation.ts'

export const DEFAULT_JUDGE_MODEL = 'gemini-2.5-flash'
export const DEFAULT_NUM_SAMPLES = 5

/**
 * ADK's JudgeModelOptions. Difference: ADK forbids unknown keys here; we keep them, so a config
 * written for a newer ADK (e.g. `parallelism_limit`) still loads instead of becoming NOT_EVALUATED.
 * @example JudgeModelOptions.parse({ numSamples: 3 }) // { judge_model: 'gemini-2.5-flash', num_samples: 3 }
 */
export const JudgeModelOptions = lazyAdkObject(
  () => ({
    judge_model: z.string().default(DEFAULT_JUDGE_MODEL),
    judge_model_config: z
      .record(z.string(), z.unknown())
      .nullish()
      .transform((v) => v ?? undefined),
    num_samples: z.number().int().positive().default(DEFAULT_NUM_SAMPLES),
  }),
  'allow',
)
export type JudgeModelOptions = z.infer<typeof JudgeModelOptions>

/** Absent or null options mean "all defaults", as in ADK. */
const judgeOptionsField = z.preprocess((v) => v ?? {}, JudgeModelOptions)

/** An optional boolean that reads absent or null as false, as ADK's defaults do. */
export function flag(): z.ZodPipe<z.ZodOptional<z.ZodNullable<z.ZodBoolean>>, z.ZodTransform<boolean, boolean | null | undefined>> {
  return z
    .boolean()
    .nullish()
    .transform((v) => v ?? false)
}

/** BaseCriterion's fields plus the judge model options: what every judged criterion has (new schemas each call). */
export function judgedCriterionFields() {
  return {
    threshold: z.number(),
    include_intermediate_responses_in_final: flag(),
    judge_model_options: judgeOptionsField,
  }
}

/**
 * ADK's RubricsBasedCriterion. `rubrics` may be empty here (ADK v2.0 asserts non-empty, #4926):
 * case- and invocation-level rubrics alone are enough for evalstream.
 * @example RubricsBasedCriterion.parse({ threshold: 1, rubrics: [] }).rubrics // []
 */
export const RubricsBasedCriterion = lazyAdkObject(
  () => ({
    ...judgedCriterionFields(),
    rubrics: z
      .array(Rubric)
      .nullish()
      .transform((v) => v ?? []),
  }),
  'allow',
)
export type RubricsBasedCriterion = z.infer<typeof RubricsBasedCriterion>

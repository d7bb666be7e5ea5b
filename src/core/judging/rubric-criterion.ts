/**
 * The machinery both rubric criteria share (spec §2.4, §2.5): effective rubrics per invocation,
 * one request of num_samples samples, a majority vote per rubric_id, the invocation score as the
 * mean of the chosen rubric scores, and the flattened overall mean.
 */
import type { Invocation, Rubric } from '../../adk/invocation.ts'
import { exactMean, rubricFlattenedAggregate } from '../aggregate.ts'
import type { Criterion, InvocationContext, JudgeAnswer, Outcome } from '../criterion.ts'
import { RUBRIC_ANSWER_SCHEMA } from './rubric-answer.ts'
import { nullReason, samplesFor } from './answers.ts'
import { RubricsBasedCriterion } from './options.ts'
import { judgeRequest, scoreOutcome } from './request.ts'
import { readRubricSample, readRubricText, type RubricSample } from './rubric-sample.ts'
import { rubricDecided, rubricVote } from './vote.ts'

type State = InvocationContext<RubricsBasedCriterion>
export type PromptRubric = { rubric_id: string; text: string }

/**
 * Criterion rubrics (any type), then the invocation's rubrics of `rubricType`. The engine passes
 * case + expected-invocation rubrics as `caseRubrics`; a caller without an engine may put them on
 * the actual invocation instead. Difference from ADK v2.0: criterion rubrics may be empty
 * (ADK asserts they are not, so per-invocation-only rubrics crash there: issue #4926).
 * @example effectiveRubrics([], [{ rubric_id: 'a', rubric_content: {}, type: 'TOOL_USE_QUALITY' }], 'TOOL_USE_QUALITY') // { rubrics: [that rubric] }
 */
export function effectiveRubrics(
  criterionRubrics: readonly Rubric[],
  invocationRubrics: readonly Rubric[] | undefined,
  rubricType: string,
): { rubrics: Rubric[] } | { reason: string } {
  const rubrics = [...criterionRubrics, ...(invocationRubrics ?? []).filter((r) => r.type === rubricType)]
  const seen = new Set<string>()
  for (const r of rubrics) {
    if (seen.has(r.rubric_id)) return { reason: `duplicate rubric_id '${r.rubric_id}' among the effective rubrics` }
    seen.add(r.rubric_id)
  }
  if (rubrics.length === 0) {
    return { reason: `no rubrics apply: set criterion rubrics or ${rubricType} rubrics on the case or invocation` }
  }
  return { rubrics }
}

export type RubricCriterionSpec = {
  key: string
  rubricType: string
  description: string
  prompt(actual: Invocation, rubrics: PromptRubric[]): { systemInstruction: string; prompt: string }
}

/**
 * The rubric verdict from the answers to request `id`: per rubric the majority of the samples'
 * yes/no (tie negative), the score the mean of the chosen rubric scores.
 */
export function rubricOutcome(
  answers: JudgeAnswer[],
  id: string,
  rubrics: Rubric[],
  /** Reads a text sample; defaults to the JSON answer with ADK v2.0's text format as the fallback. */
  readText?: (text: string, rubrics: readonly Rubric[]) => RubricSample,
): Outcome {
  const samples = samplesFor(answers, id)
  const read = samples.map((s) => ('text' in s && readText ? readText(s.text, rubrics) : readRubricSample(s, rubrics)))
  const chosen = rubricVote(read.map((r) => r.rubric_scores))
  const scored: number[] = []
  for (const c of chosen) if (typeof c.score === 'number') scored.push(c.score)
  const details = {
    rubric_scores: chosen,
    samples: read.map((r) => ({
      parsed_with: r.parsed_with ?? null,
      rubrics_read: r.rubric_scores.length,
      ...(r.error ? { error: r.error } : {}),
    })),
  }
  const reason = nullReason(samples, 'no rubric got a yes/no verdict that could be matched to a rubric')
  return scoreOutcome(exactMean(scored), reason, details)
}

/** Build a rubric criterion from its name, rubric type and prompt. */
export function rubricCriterion(spec: RubricCriterionSpec): Criterion<RubricsBasedCriterion, State> {
  function finish(state: State, actual: Invocation): Outcome {
    const found = effectiveRubrics(state.config.rubrics, state.caseRubrics ?? actual.rubrics, spec.rubricType)
    if ('reason' in found) return scoreOutcome(null, found.reason)
    const { rubrics } = found
    const promptRubrics = rubrics.map((r) => ({ rubric_id: r.rubric_id, text: r.rubric_content.text_property ?? '' }))
    const { systemInstruction, prompt } = spec.prompt(actual, promptRubrics)
    const options = state.config.judge_model_options
    const ids = rubrics.map((r) => r.rubric_id)
    const request = judgeRequest({
      metric: spec.key,
      invocationKey: state.key,
      step: 'rubrics',
      systemInstruction,
      prompt,
      responseJsonSchema: RUBRIC_ANSWER_SCHEMA,
      options,
      samples: options.num_samples,
      decided: (texts) => rubricDecided(texts.map((t) => readRubricText(t, rubrics).rubric_scores), ids, options.num_samples),
    })
    return { kind: 'judge', requests: [request], resume: (answers) => rubricOutcome(answers, request.id, rubrics) }
  }

  return {
    key: spec.key,
    description: spec.description,
    config: RubricsBasedCriterion,
    needsExpected: false,
    judged: true,
    init: (context) => context,
    finish,
    aggregate: rubricFlattenedAggregate,
  }
}

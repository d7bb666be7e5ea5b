/**
 * hallucinations_v1's pieces of agent text to check and what each is checked against (spec §2.6):
 * with evaluate_intermediate_nl_responses every text part of every intermediate event is a step
 * (context: the events before it), and the final response text always is (context: all events).
 * Only the InvocationEvents shape of intermediate data carries events, as in ADK.
 */
import { contentText } from '../../../adk/content.ts'
import type { Invocation } from '../../../adk/invocation.ts'
import type { JudgeSample } from '../../criterion.ts'
import { parseJsonAnswer } from '../../judging/answers.ts'
import { hallucinationContext, invocationEventsOf } from '../../judging/context.ts'
import { SegmenterAnswer } from './segmenter-prompt.ts'
import { ValidatorAnswer } from './validator-prompt.ts'
import { parseSentences, parseValidatorBlocks, type SentenceVerdict } from './adk-text.ts'

export type HallucinationStep = { source: 'intermediate' | 'final'; text: string; context: string }

/**
 * @example hallucinationSteps(invocation, false).map((s) => s.source) // ['final'] when the final text is non-empty
 */
export function hallucinationSteps(invocation: Invocation, includeIntermediate: boolean): HallucinationStep[] {
  const events = invocationEventsOf(invocation)
  const steps: HallucinationStep[] = []
  if (includeIntermediate) {
    events.forEach((event, i) => {
      const texts = (event.content?.parts ?? []).flatMap((p) => (p.text ? [p.text] : []))
      if (texts.length === 0) return
      const context = hallucinationContext(invocation, events.slice(0, i))
      for (const text of texts) steps.push({ source: 'intermediate', text, context })
    })
  }
  const final = contentText(invocation.final_response)
  if (final !== '') steps.push({ source: 'final', text: final, context: hallucinationContext(invocation, events) })
  return steps
}

/** The sentences of a segmenter sample: JSON when valid, else ADK's `<sentence>` tags; or its error. */
export function readSegmenterSample(sample: JudgeSample | undefined): { sentences: string[] } | { error: string } {
  if (!sample) return { error: 'no segmenter sample' }
  if ('error' in sample) return { error: sample.error }
  if (!('text' in sample)) return { error: 'unexpected service score for a text judge' }
  const json = parseJsonAnswer(sample.text, SegmenterAnswer)
  return { sentences: json ? json.sentences : parseSentences(sample.text) }
}

/** The verdicts of a validator sample: JSON when valid, else ADK's text blocks; or its error. */
export function readValidatorSample(sample: JudgeSample | undefined): { verdicts: SentenceVerdict[] } | { error: string } {
  if (!sample) return { error: 'no validator sample' }
  if ('error' in sample) return { error: sample.error }
  if (!('text' in sample)) return { error: 'unexpected service score for a text judge' }
  const json = parseJsonAnswer(sample.text, ValidatorAnswer)
  if (!json) return { verdicts: parseValidatorBlocks(sample.text) }
  return {
    verdicts: json.sentences.map((s) => ({
      sentence: s.sentence,
      label: s.label,
      rationale: s.rationale ?? '',
      supporting_excerpt: s.supporting_excerpt ?? null,
      contradicting_excerpt: s.contradicting_excerpt ?? null,
    })),
  }
}

/**
 * `response_match_score` (ADK RougeEvaluator, spec §2.2): ROUGE-1 F-measure of the agent's final
 * response against the expected final response; overall the mean. Live: while the final text
 * streams in as partial chunks, a provisional score follows it chunk by chunk.
 */
import * as z from 'zod'
import { lazyAdkObject } from '../../adk/casing.ts'
import { contentText } from '../../adk/content.ts'
import type { AdkEvent } from '../../adk/event.ts'
import type { Invocation } from '../../adk/invocation.ts'
import { meanAggregate } from '../aggregate.ts'
import type { Criterion, InvocationContext, Outcome, Provisional } from '../criterion.ts'
import { rouge1Unigrams, StreamingRouge, type Unigrams, unigrams } from '../text/rouge.ts'
import { tokenize, TOKENIZERS } from '../text/tokenize.ts'

/** Numbers, and numeric strings as pydantic's lax float accepts them. */
const threshold = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number(),
)

/**
 * ADK's BaseCriterion (`threshold`, unknown keys kept) plus evalstream's opt-in `tokenizer`:
 * 'adk' (default, rouge_score exactly) or 'unicode' (scores non-Latin scripts; see tokenize.ts).
 * @example ResponseMatchConfig.parse({ threshold: 0.8, tokenizer: 'unicode' }).tokenizer // 'unicode'
 */
export const ResponseMatchConfig = lazyAdkObject(
  () => ({ threshold, tokenizer: z.enum(TOKENIZERS).optional().transform((v) => v ?? 'adk') }),
  'allow',
)
export type ResponseMatchConfig = z.infer<typeof ResponseMatchConfig>

export const NO_REFERENCE_REASON = 'response_match_score needs an expected invocation (a reference final response)'

export type ResponseMatchState = {
  config: ResponseMatchConfig
  /** Expected final text; undefined when there is no expected invocation (score null). */
  reference: string | undefined
  /** Reference unigrams, counted once for the provisional scores. */
  referenceUnigrams: Unigrams | undefined
  /** The agent message streaming in now (partial chunks since the last complete event). */
  streaming: StreamingRouge
}

/**
 * The reference text and its unigrams, per expected invocation and tokenizer: read, never changed,
 * so every run on that expected invocation (a session's, its revivals', a replay's) shares them
 * rather than tokenizing the same text again.
 */
const references = new WeakMap<Invocation, { tokenizer: string | undefined; text: string; unigrams: Unigrams }>()

function referenceOf(expected: Invocation, tokenizer: ResponseMatchConfig['tokenizer']) {
  const known = references.get(expected)
  if (known?.tokenizer === tokenizer) return known
  const text = contentText(expected.final_response)
  const made = { tokenizer, text, unigrams: unigrams(tokenize(text, tokenizer)) }
  references.set(expected, made)
  return made
}

function init(context: InvocationContext<ResponseMatchConfig>): ResponseMatchState {
  const { config, expected } = context
  const reference = expected ? referenceOf(expected, config.tokenizer) : undefined
  return {
    config,
    reference: reference?.text,
    referenceUnigrams: reference?.unigrams,
    streaming: new StreamingRouge(config.tokenizer),
  }
}

/**
 * Mutates and returns `state`. ADK streams a message as `partial: true` chunks and then sends it
 * once more, whole, with `partial: false`: chunks accumulate until a complete event with content
 * ends the message. Content-less events (ADK JS sends some between messages) change nothing.
 */
function step(state: ResponseMatchState, event: AdkEvent): ResponseMatchState {
  if (!state.referenceUnigrams || !event.content?.parts?.length) return state
  if ((event.author || 'agent').toLowerCase() === 'user') return state
  if (event.partial === true) state.streaming.append(contentText(event.content))
  else state.streaming.reset()
  return state
}

/** The score the text streamed so far would get; not final, the answer may go on or be replaced. */
function progress(state: ResponseMatchState): Provisional | null {
  if (!state.referenceUnigrams || state.streaming.empty) return null
  const { precision, recall, fmeasure } = state.streaming.score(state.referenceUnigrams)
  return { final: false, score: fmeasure, details: { precision, recall } }
}

function finish(state: ResponseMatchState, actual: Invocation): Outcome {
  if (state.reference === undefined) {
    return { kind: 'score', result: { score: null, status: 'NOT_EVALUATED', reason: NO_REFERENCE_REASON } }
  }
  const candidate = unigrams(tokenize(contentText(actual.final_response), state.config.tokenizer))
  // rouge1(candidate, reference), with the reference's unigrams counted once at init.
  const { precision, recall, fmeasure } = rouge1Unigrams(candidate, state.referenceUnigrams!)
  return { kind: 'score', result: { score: fmeasure, details: { precision, recall } } }
}

/**
 * The criterion, as the registry holds it.
 * @example
 * const config = responseMatchScore.config.parse({ threshold: 0.8 })
 * const state = responseMatchScore.init({ config, expected, key: 'k' })
 */
export const responseMatchScore: Criterion<ResponseMatchConfig, ResponseMatchState> = {
  key: 'response_match_score',
  description: "ROUGE-1 F-measure between the agent's final response and the expected one (rouge_score with " +
    "NLTK's Porter stemmer, as ADK); overall the mean. Option tokenizer: 'unicode' scores " +
    'Japanese, Chinese, Thai and other non-Latin answers, which ADK scores 0.',
  config: ResponseMatchConfig,
  needsExpected: true,
  judged: false,
  init,
  step,
  progress,
  finish,
  aggregate: meanAggregate,
}

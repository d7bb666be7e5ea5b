/**
 * ROUGE-1 as rouge_score computes it for ADK's response_match_score (spec §2.2):
 * `RougeScorer(['rouge1'], use_stemmer=True).score(target=reference, prediction=candidate)`.
 * The arithmetic follows Python's order so every float is bit-identical.
 */
import { tokenize, type TokenizerMode } from './tokenize.ts'

export type RougeScore = { precision: number; recall: number; fmeasure: number }
export type RougeOptions = { tokenizer?: TokenizerMode }

/** A bag of unigrams: how often each token occurs, and how many tokens there are. */
export type Unigrams = { counts: Map<string, number>; total: number }

/**
 * Counts the tokens of a text once, e.g. a reference scored against many candidates.
 * @example unigrams(['a', 'b', 'a']) // { counts: Map { 'a' => 2, 'b' => 1 }, total: 3 }
 */
export function unigrams(tokens: readonly string[]): Unigrams {
  const counts = new Map<string, number>()
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1)
  return { counts, total: tokens.length }
}

/** rouge_score's `_score_ngrams` for n = 1, with an optional second bag added to the candidate. */
function score(candidate: Unigrams, reference: Unigrams, extra?: Unigrams): RougeScore {
  // Clipped overlap: each unigram counts as often as it appears in both texts.
  let overlap = 0
  for (const [token, n] of reference.counts) {
    const m = (candidate.counts.get(token) ?? 0) + (extra?.counts.get(token) ?? 0)
    overlap += Math.min(n, m)
  }
  const candidateTotal = candidate.total + (extra?.total ?? 0)
  // rouge_score divides by max(count, 1): an empty side scores 0 instead of dividing by zero.
  const precision = overlap / Math.max(candidateTotal, 1)
  const recall = overlap / Math.max(reference.total, 1)
  // Python evaluates 2 * p * r / (p + r) left to right, ((2 * p) * r) / (p + r); so does JS.
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0
  return { precision, recall, fmeasure }
}

/**
 * ROUGE-1 of two bags of unigrams.
 * @example rouge1Unigrams(unigrams(['a', 'b']), unigrams(['a'])).fmeasure // 0.6666666666666666
 */
export function rouge1Unigrams(candidate: Unigrams, reference: Unigrams): RougeScore {
  return score(candidate, reference)
}

/**
 * ROUGE-1 precision, recall and F-measure of `candidate` against `reference`. Both empty gives 0.
 * @example rouge1('This is a test candidate response.', 'This is a test reference.').fmeasure // 0.7272727272727272
 */
export function rouge1(candidate: string, reference: string, options?: RougeOptions): RougeScore {
  const mode = options?.tokenizer ?? 'adk'
  return score(unigrams(tokenize(candidate, mode)), unigrams(tokenize(reference, mode)))
}

/**
 * Where a text can be cut without changing its tokens: 'adk' splits on every ASCII character that
 * is not a letter or digit (and lowercasing never turns one into a letter); word segmentation
 * ('unicode') never joins across ASCII whitespace.
 */
const SAFE_CUT: Record<TokenizerMode, RegExp> = {
  // ASCII control characters count as separators too (deliberately).
  // deno-lint-ignore no-control-regex
  adk: /[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/,
  unicode: /[ \t\n\r\f\v]/,
}

function lastSafeCut(text: string, mode: TokenizerMode): number {
  const re = SAFE_CUT[mode]
  for (let i = text.length - 1; i >= 0; i--) if (re.test(text[i]!)) return i
  return -1
}

/**
 * A candidate text that arrives in chunks (a streamed answer). Text before the last safe cut is
 * tokenized and counted once; only the unfinished tail is re-tokenized per score, so scoring after
 * every chunk stays linear in the answer's length. Scores equal `rouge1` on the concatenated text.
 * @example
 * const s = new StreamingRouge('adk'); s.append('The quick br'); s.append('own fox')
 * s.score(unigrams(tokenize('the brown fox'))).fmeasure // 0.8571428571428571
 */
export class StreamingRouge {
  readonly mode: TokenizerMode
  #done: Unigrams = { counts: new Map(), total: 0 }
  #tail = ''

  constructor(mode: TokenizerMode) {
    this.mode = mode
  }

  append(chunk: string): void {
    const text = this.#tail + chunk
    const cut = lastSafeCut(text, this.mode)
    if (cut < 0) {
      this.#tail = text
      return
    }
    for (const t of tokenize(text.slice(0, cut + 1), this.mode)) {
      this.#done.counts.set(t, (this.#done.counts.get(t) ?? 0) + 1)
      this.#done.total++
    }
    this.#tail = text.slice(cut + 1)
  }

  /** Empty again, for the next message. */
  reset(): void {
    this.#done = { counts: new Map(), total: 0 }
    this.#tail = ''
  }

  get empty(): boolean {
    return this.#done.total === 0 && this.#tail === ''
  }

  score(reference: Unigrams): RougeScore {
    return score(this.#done, reference, unigrams(tokenize(this.#tail, this.mode)))
  }
}

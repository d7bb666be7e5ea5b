/**
 * hallucinations_v1's ADK text formats (spec §2.6): the segmenter's `<sentence>` tags, the
 * validator's `sentence:/label:/rationale:/supporting_excerpt:/contradicting_excerpt:` blocks, and
 * the label scores (supported and not_applicable count 1, the three negative labels 0, others are
 * ignored: a backticked or empty label scores nothing).
 */

export type SentenceVerdict = {
  sentence: string
  label: string
  rationale: string
  supporting_excerpt: string | null
  contradicting_excerpt: string | null
}

const SENTENCE = /<sentence>([\s\S]*?)<\/sentence>/g

/**
 * The sentences of a segmenter answer, verbatim (a misspelled closing tag loses that sentence).
 * @example parseSentences('<sentence>A.</sentence><sentence>B.</sentence>') // ['A.', 'B.']
 */
export function parseSentences(text: string): string[] {
  return Array.from(text.matchAll(SENTENCE), (m) => m[1] ?? '')
}

// Values run to the end of their line ([ \t]* so an empty value cannot swallow the next key); a
// block runs until the next "\nsentence:" or the end of the text.
const BLOCK =
  /sentence:[ \t]*([\s\S]*?)\nlabel:[ \t]*([\s\S]*?)\nrationale:[ \t]*([\s\S]*?)\nsupporting_excerpt:[ \t]*([\s\S]*?)\ncontradicting_excerpt:[ \t]*([\s\S]*?)(?=\nsentence:|$)/gi

function excerpt(value: string): string | null {
  const trimmed = value.trim()
  return trimmed.toLowerCase() === 'null' ? null : trimmed
}

/**
 * The per-sentence verdicts of a validator answer.
 * @example parseValidatorBlocks('sentence: A.\nlabel: supported\nrationale: r\nsupporting_excerpt: A\ncontradicting_excerpt: null')
 * // [{ sentence: 'A.', label: 'supported', rationale: 'r', supporting_excerpt: 'A', contradicting_excerpt: null }]
 */
export function parseValidatorBlocks(text: string): SentenceVerdict[] {
  return Array.from(text.trim().matchAll(BLOCK), (m) => ({
    sentence: (m[1] ?? '').trim(),
    label: (m[2] ?? '').trim(),
    rationale: (m[3] ?? '').trim(),
    supporting_excerpt: excerpt(m[4] ?? ''),
    contradicting_excerpt: excerpt(m[5] ?? ''),
  }))
}

const LABEL_SCORES: Record<string, number> = {
  supported: 1,
  not_applicable: 1,
  unsupported: 0,
  contradictory: 0,
  disputed: 0,
}

/**
 * A sentence label's score, or undefined when ADK ignores the label.
 * @example hallucinationLabelScore(' Supported ') // 1
 */
export function hallucinationLabelScore(label: string): number | undefined {
  const key = label.trim().toLowerCase()
  return Object.hasOwn(LABEL_SCORES, key) ? LABEL_SCORES[key] : undefined
}

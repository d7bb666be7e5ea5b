/**
 * Tokenizers for ROUGE. 'adk' is rouge_score's tokenizer, reproduced exactly (spec §2.2); it keeps
 * ASCII letters and digits only, so a Japanese, Chinese or Thai answer has no tokens and scores 0
 * (adk-python #3111, #4122). 'unicode' is evalstream's opt-in fix for that.
 */
import { porterStem } from './porter.ts'

export const TOKENIZERS = ['adk', 'unicode'] as const
export type TokenizerMode = (typeof TOKENIZERS)[number]

/** rouge_score stems only tokens longer than this. */
const MIN_STEM_LENGTH = 4
/** Memo of stems: answers repeat their words, and stemming dominates tokenizing. */
const STEM_CACHE_LIMIT = 50_000
const stemCache = new Map<string, string>()

function stem(token: string): string {
  let s = stemCache.get(token)
  if (s === undefined) {
    s = porterStem(token)
    // Dropping the whole memo when full keeps this O(1) and bounded; stems never change.
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear()
    stemCache.set(token, s)
  }
  return s
}

const NON_ALNUM_ASCII = /[^a-z0-9]+/
const ALNUM_ASCII = /^[a-z0-9]+$/

/** rouge_score: lowercase, non-[a-z0-9] runs split, stem tokens longer than 3, keep [a-z0-9]+. */
function tokenizeAdk(text: string): string[] {
  const tokens: string[] = []
  for (const raw of text.toLowerCase().split(NON_ALNUM_ASCII)) {
    if (raw === '') continue
    const token = raw.length >= MIN_STEM_LENGTH ? stem(raw) : raw
    // Stems of [a-z0-9] words stay [a-z0-9]; the test is rouge_score's and costs little.
    if (ALNUM_ASCII.test(token)) tokens.push(token)
  }
  return tokens
}

/** Characters that separate tokens inside a word-like segment ("don't", "3.14", "e-mail"). */
const NOT_WORD_CHAR = /[^\p{L}\p{M}\p{N}]+/u
// Every ASCII code point, control characters included (deliberately).
// deno-lint-ignore no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/

let segmenter: Intl.Segmenter | undefined
function wordSegmenter(): Intl.Segmenter {
  // The root locale: results must not depend on the host's default locale.
  segmenter ??= new Intl.Segmenter('und', { granularity: 'word' })
  return segmenter
}

/**
 * Unicode words (UAX #29 plus the runtime's ICU dictionaries for CJK and Thai), lowercased, split
 * further on anything that is not a letter, mark or digit. For ASCII text this gives exactly the
 * 'adk' tokens, so opting in never changes an English score.
 */
function tokenizeUnicode(text: string): string[] {
  const tokens: string[] = []
  for (const segment of wordSegmenter().segment(text.toLowerCase())) {
    if (!segment.isWordLike) continue
    for (const raw of segment.segment.split(NOT_WORD_CHAR)) {
      if (raw === '') continue
      tokens.push(raw.length >= MIN_STEM_LENGTH && ASCII_ONLY.test(raw) ? stem(raw) : raw)
    }
  }
  return tokens
}

/**
 * Splits a text into ROUGE tokens.
 * @example tokenize('The dogs were running!') // ['the', 'dog', 'were', 'run']
 */
export function tokenize(text: string, mode: TokenizerMode = 'adk'): string[] {
  return mode === 'unicode' ? tokenizeUnicode(text) : tokenizeAdk(text)
}

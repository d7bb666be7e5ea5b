/** Covers: src/core/criteria/final-response-match-v2/verdict-label.ts, src/core/criteria/final-response-match-v2/verdict-sample.ts, src/core/criteria/hallucinations/adk-text.ts. */
import { describe, expect, it } from 'vitest'
import type { Rubric } from '../../../../src/adk/invocation.ts'
import { exactMean } from '../../../../src/core/aggregate.ts'
import { parseVerdictLabel, verdictLabelScore } from '../../../../src/core/criteria/final-response-match-v2/verdict-label.ts'
import { hallucinationLabelScore, parseSentences, parseValidatorBlocks } from '../../../../src/core/criteria/hallucinations/adk-text.ts'
import { readVerdictText } from '../../../../src/core/criteria/final-response-match-v2/verdict-sample.ts'
import { parseRubricText, propertiesToRubricScores, verdictScore } from '../../../../src/core/judging/rubric-text.ts'
import { loadVectors } from './load-vectors.ts'

type Parsing = {
  final_response_match_v2_label: Array<{ id: string; raw: string; expected_label: string }>
  final_response_match_v2_score: Array<{ id: string; raw: string; expected_score: number | null }>
  rubric_parser: Array<{ id: string; raw: string; expected: unknown[] }>
  rubric_convert_to_score: Array<{
    id: string
    raw: string
    effective_rubrics: Rubric[]
    expected: { score?: number; rubric_scores: unknown[] }
  }>
  hallucinations_segmenter_parse: Array<{ id: string; raw: string; expected_sentences: string[] }>
  hallucinations_validator_parse: Array<{ id: string; raw: string; expected: unknown[] }>
}
const V = loadVectors<Parsing>('judge_parsing.json')

describe('final_response_match_v2 label (ADK text parser)', () => {
  it.each(V.final_response_match_v2_label.map((v) => [v.id, v] as const))('%s', (_, v) => {
    expect(parseVerdictLabel(v.raw)).toBe(v.expected_label)
  })
  it.each(V.final_response_match_v2_score.map((v) => [v.id, v] as const))('%s score', (_, v) => {
    expect(verdictLabelScore(parseVerdictLabel(v.raw))).toBe(v.expected_score)
    // The full sample reader (JSON first, ADK text second) agrees on every ADK vector.
    expect(readVerdictText(v.raw).score).toBe(v.expected_score)
  })

  it.each([
    ['case-sensitive', '{"is_the_agent_response_valid": "Valid"}', 'NOT_FOUND'],
    ['strips the letter s', '{"is_the_agent_response_valid": "valids"}', 'VALID'],
    ['almost is invalid', '{"is_the_agent_response_valid": "almost"}', 'INVALID'],
    ['true is valid', '{"is_the_agent_response_valid": true}', 'VALID'],
    ['space before colon', '{"is_the_agent_response_valid" : "valid"}', 'NOT_FOUND'],
    ['single quotes', "{'is_the_agent_response_valid': 'valid'}", 'NOT_FOUND'],
    ['invalid-key fallback maps unknown labels to VALID', '{"is_the_agent_response_invalid": "maybe"}', 'VALID'],
    ['invalid-key fallback true', '{"is_the_agent_response_invalid": true}', 'INVALID'],
  ])('quirk: %s', (_, raw, label) => {
    expect(parseVerdictLabel(raw)).toBe(label)
  })
})

describe("final_response_match_v2 sample reader: the label only as ADK's regex reads it, the JSON for the reasoning", () => {
  it.each(V.final_response_match_v2_label.map((v) => [v.id, v] as const))('%s: same label as ADK', (_, v) => {
    expect(readVerdictText(v.raw).label).toBe(v.expected_label)
  })

  // [name, judge text, label, reasoning]: JSON answers are read by ADK's regex, never by JSON.parse.
  it.each(
    [
      ['schema JSON', '{"reasoning": "same", "is_the_agent_response_valid": "valid"}', 'VALID', 'same'],
      ['compact JSON', '{"reasoning":"differs","is_the_agent_response_valid":"invalid"}', 'INVALID', 'differs'],
      ['whitespace before the colon', '{"reasoning": "r", "is_the_agent_response_valid" : "valid"}', 'NOT_FOUND', 'r'],
      ['tab before the colon', '{"is_the_agent_response_valid"\t: "invalid", "reasoning": "r"}', 'NOT_FOUND', 'r'],
      ['capitalised label', '{"reasoning": "r", "is_the_agent_response_valid": "Valid"}', 'NOT_FOUND', 'r'],
      ['label as a JSON array', '{"reasoning": "r", "is_the_agent_response_valid": ["valid"]}', 'VALID', 'r'],
      ['label as a JSON boolean', '{"reasoning": "r", "is_the_agent_response_valid": true}', 'VALID', 'r'],
      ['escaped key is not the key', '{"reasoning": "r", "is_the_agent_response_\\u0076alid": "valid"}', 'NOT_FOUND', 'r'],
      ['fenced JSON', '```json\n{"reasoning": "fenced", "is_the_agent_response_valid": "invalid"}\n```', 'INVALID', 'fenced'],
      ['invalid-key fallback in JSON', '{"reasoning": "r", "is_the_agent_response_invalid": "no"}', 'VALID', 'r'],
      ['non-string reasoning is dropped', '{"reasoning": ["a"], "is_the_agent_response_valid": "valid"}', 'VALID', undefined],
      ['plain text', 'is_the_agent_response_valid: valid', 'NOT_FOUND', undefined],
    ] as const,
  )('%s', (_, text, label, reasoning) => {
    const sample = readVerdictText(text)
    expect(sample.label).toBe(label)
    expect(sample.label).toBe(parseVerdictLabel(text))
    expect(sample.score).toBe(verdictLabelScore(label))
    expect(sample.reasoning).toBe(reasoning)
    expect(sample.parsed_with).toBe('adk-text')
  })
})

describe('rubric Property/Rationale/Verdict parser (ADK v2.0)', () => {
  it.each(V.rubric_parser.map((v) => [v.id, v] as const))('%s', (_, v) => {
    expect(parseRubricText(v.raw)).toEqual(v.expected)
  })
  it.each(V.rubric_convert_to_score.map((v) => [v.id, v] as const))('%s', (_, v) => {
    const scores = propertiesToRubricScores(parseRubricText(v.raw), v.effective_rubrics)
    expect(scores).toEqual(v.expected.rubric_scores)
    const numbers = scores.flatMap((s) => (typeof s.score === 'number' ? [s.score] : []))
    expect(exactMean(numbers)).toBe(v.expected.score ?? null)
  })

  it.each([
    ['not applicable', 0],
    ['No, but yes in part', 1],
    ['N/A', undefined],
    ['**yes**', 1],
  ])('verdict substring rule: %s', (verdict, score) => {
    expect(verdictScore(verdict)).toBe(score)
  })

  it('zips by position: a missing Rationale line shifts rationales', () => {
    const raw = 'Property: A\nVerdict: yes\nProperty: B\nRationale: about B\nVerdict: no'
    expect(parseRubricText(raw)).toEqual([{ property_text: 'A', rationale: 'about B', score: 1 }])
  })

  it('markdown bold keys do not match', () => {
    expect(parseRubricText('**Property:** A\n**Rationale:** r\n**Verdict:** yes')).toEqual([])
  })

  it('matches property text by lower/strip equality only', () => {
    const rubrics: Rubric[] = [{ rubric_id: 'r', rubric_content: { text_property: '  Is It Polite? ' } }]
    const parsed = parseRubricText('Property: is it polite?\nRationale: x\nVerdict: yes\nProperty: Is it polite\nRationale: y\nVerdict: no')
    expect(propertiesToRubricScores(parsed, rubrics)).toEqual([{ rubric_id: 'r', rationale: 'x', score: 1 }])
  })
})

describe('hallucinations_v1 parsers', () => {
  it.each(V.hallucinations_segmenter_parse.map((v) => [v.id, v] as const))('%s', (_, v) => {
    expect(parseSentences(v.raw)).toEqual(v.expected_sentences)
  })
  it.each(V.hallucinations_validator_parse.map((v) => [v.id, v] as const))('%s', (_, v) => {
    expect(parseValidatorBlocks(v.raw)).toEqual(v.expected)
  })
  it('is case-insensitive on keys and maps NULL excerpts to null', () => {
    const raw = 'Sentence: A.\nLabel: Supported\nRationale: r\nSupporting_Excerpt: NULL\nContradicting_Excerpt: c'
    expect(parseValidatorBlocks(raw)).toEqual([
      { sentence: 'A.', label: 'Supported', rationale: 'r', supporting_excerpt: null, contradicting_excerpt: 'c' },
    ])
  })
  it.each([
    ['supported', 1],
    [' Not_Applicable ', 1],
    ['unsupported', 0],
    ['contradictory', 0],
    ['disputed', 0],
    ['`supported`', undefined],
    ['', undefined],
    ['unexpected', undefined],
  ])('label %j scores %j', (label, score) => {
    expect(hallucinationLabelScore(label)).toBe(score)
  })
})

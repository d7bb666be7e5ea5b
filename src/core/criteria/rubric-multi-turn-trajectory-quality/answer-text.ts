/**
 * The text fallback for the multi-turn trajectory judge's answer: ADK's newer format, one block
 * per property of `ID:` (when the property has an id), `Property:`, `Rationale:` and `Verdict:`
 * lines, matched to rubrics by id first and by property text otherwise (spec §1.4). Read block by
 * block, so a property without an `ID:` line does not shift the others.
 */
import type { Rubric } from '../../../adk/invocation.ts'
import { normaliseProperty, type RubricScore, verdictScore } from '../../judging/rubric-text.ts'

type Block = { id?: string; property?: string; rationale?: string; verdict?: string }

const LINE = /^\s*(ID|Property|Rationale|Verdict):\s?(.*)$/

/**
 * @example
 * parseIdBlocks('ID: r1\nProperty: p\nRationale: ok\nVerdict: yes') // [{ id: 'r1', property: 'p', rationale: 'ok', verdict: 'yes' }]
 */
export function parseIdBlocks(text: string): Block[] {
  const blocks: Block[] = []
  let current: Block | undefined
  for (const line of text.split('\n')) {
    const m = LINE.exec(line)
    if (!m) continue
    const field = m[1]
    const value = (m[2] ?? '').trim()
    // A block starts at an ID line, or at a Property line unless it follows its block's ID line.
    const joinsIdLine = field === 'Property' && current?.id !== undefined && current.property === undefined && current.verdict === undefined
    if (!current || field === 'ID' || (field === 'Property' && !joinsIdLine)) {
      current = {}
      blocks.push(current)
    }
    if (field === 'ID') current.id = value
    else if (field === 'Property') current.property = value
    else if (field === 'Rationale') current.rationale = value
    else current.verdict = value
  }
  return blocks
}

/** Rubric scores from a text answer: by id when it names a rubric, else by normalised property text. */
export function readIdBlocks(text: string, rubrics: readonly Rubric[]): RubricScore[] {
  const ids = new Set(rubrics.map((r) => r.rubric_id))
  const scores: RubricScore[] = []
  for (const block of parseIdBlocks(text)) {
    if (block.verdict === undefined) continue
    let rubricId = block.id !== undefined && ids.has(block.id) ? block.id : undefined
    if (rubricId === undefined && block.property !== undefined) {
      const wanted = normaliseProperty(block.property)
      rubricId = rubrics.find((r) => normaliseProperty(r.rubric_content.text_property ?? '') === wanted)?.rubric_id
    }
    if (rubricId === undefined) continue
    const score: RubricScore = { rubric_id: rubricId, rationale: block.rationale ?? '' }
    const value = verdictScore(block.verdict)
    if (value !== undefined) score.score = value
    scores.push(score)
  }
  return scores
}

/**
 * ADK's majority votes over judge samples (spec §2.3, §2.4; vectors majority_vote.json), and the
 * matching "already decided" tests the executor uses to stop sampling early. The vote keeps the
 * FIRST sample of the winning side, so an early stop is only safe once the winning side can no
 * longer change: that sample has then already been drawn.
 */
import type { RubricScore } from './rubric-text.ts'

export type Side = 'positive' | 'negative' | 'none'

/**
 * A yes/no verdict (final_response_match_v2, per_turn_user_simulator_quality_v1): only exactly 1
 * and exactly 0 vote; more positives -> the first positive, otherwise (ties included) the first
 * negative, no votes -> the first sample.
 * @example verdictVoteIndex([1, null, 0, 0]) // 2
 */
export function verdictVoteIndex(scores: readonly (number | null | undefined)[]): number {
  return voteIndex(scores, (s) => (s === 1 ? 'positive' : s === 0 ? 'negative' : 'none'))
}

/** The chosen index for sides already classified; -1 only for an empty list. */
function voteIndex<T>(items: readonly T[], side: (item: T) => Side): number {
  let positives = 0
  let negatives = 0
  let firstPositive = -1
  let firstNegative = -1
  items.forEach((item, i) => {
    const s = side(item)
    if (s === 'positive') {
      positives++
      if (firstPositive < 0) firstPositive = i
    } else if (s === 'negative') {
      negatives++
      if (firstNegative < 0) firstNegative = i
    }
  })
  if (positives === 0 && negatives === 0) return items.length > 0 ? 0 : -1
  return positives > negatives ? firstPositive : firstNegative
}

/**
 * Whether `remaining` more votes could still change which side wins.
 * @example sideDecided(3, 0, 2) // true: 3 > 0 + 2
 */
export function sideDecided(positives: number, negatives: number, remaining: number): boolean {
  if (remaining <= 0) return true
  if (positives > negatives + remaining) return true
  // Ties go negative, so the negatives win as soon as every remaining vote going positive still ties.
  return negatives > 0 && negatives >= positives + remaining
}

/**
 * Early stop for yes/no verdict samples, given how samples score.
 * @example verdictDecided([1, 1, 1], 5) // true
 */
export function verdictDecided(scores: readonly (number | null)[], total: number): boolean {
  const positives = scores.filter((s) => s === 1).length
  const negatives = scores.filter((s) => s === 0).length
  return sideDecided(positives, negatives, total - scores.length)
}

function rubricSide(entry: RubricScore): Side {
  if (entry.score === undefined || entry.score === null) return 'none'
  return entry.score === 1 ? 'positive' : 'negative'
}

/**
 * Rubric metrics: one vote per rubric_id across samples (any non-None score other than 1 is a
 * negative); all-None -> the first None entry. Rubric ids keep their order of first appearance.
 * @example rubricVote([[{ rubric_id: '1', score: 1 }], [{ rubric_id: '1', score: 0 }]]) // [{ rubric_id: '1', score: 0 }]
 */
export function rubricVote(samples: readonly (readonly RubricScore[])[]): RubricScore[] {
  const byId = new Map<string, RubricScore[]>()
  for (const sample of samples) {
    for (const entry of sample) {
      const list = byId.get(entry.rubric_id)
      if (list) list.push(entry)
      else byId.set(entry.rubric_id, [entry])
    }
  }
  const chosen: RubricScore[] = []
  for (const entries of byId.values()) {
    const index = voteIndex(entries, rubricSide)
    if (index >= 0) chosen.push(entries[index] as RubricScore)
  }
  return chosen
}

/**
 * Early stop for rubric samples: every expected rubric's side is settled.
 * @example rubricDecided([[{ rubric_id: 'a', score: 1 }]], ['a'], 1) // true
 */
export function rubricDecided(
  samples: readonly (readonly RubricScore[])[],
  rubricIds: readonly string[],
  total: number,
): boolean {
  const remaining = total - samples.length
  if (remaining <= 0) return true
  // A judge that lists a property twice casts two votes in one sample; the arithmetic below assumes
  // one vote per sample, so such answers never stop early.
  if (samples.some((s) => new Set(s.map((e) => e.rubric_id)).size !== s.length)) return false
  return rubricIds.every((id) => {
    let positives = 0
    let negatives = 0
    for (const sample of samples) {
      for (const entry of sample) {
        if (entry.rubric_id !== id) continue
        const side = rubricSide(entry)
        if (side === 'positive') positives++
        else if (side === 'negative') negatives++
      }
    }
    return sideDecided(positives, negatives, remaining)
  })
}

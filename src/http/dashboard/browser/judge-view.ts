/**
 * What a judged result's details say about the judge: its rationale, each sample's vote (and that
 * sample's reasoning when the criterion keeps it), per-rubric verdicts, and any other rationale-like
 * text further down (hallucinations keeps one per sentence). Read defensively: details are
 * whatever the criterion wrote, and every walk and list is bounded. Pure (no DOM).
 */

export type JudgeVote = { label: string; reasoning?: string; chosen?: boolean }
export type RubricVerdict = { id: string; verdict: 'yes' | 'no' | 'no verdict'; rationale?: string }

export type JudgeView = {
  rationale?: string
  votes: JudgeVote[]
  rubrics: RubricVerdict[]
  /** Rationale-like strings found deeper in the details (not the ones above). */
  notes: string[]
}

/** How deep and how many entries the rationale search walks in a result's details. */
const MAX_WALK_DEPTH = 4
const MAX_NOTES = 12
const MAX_KEYS_PER_OBJECT = 50
/** Votes and rubrics shown at most (num_samples and rubric lists are small in practice). */
export const MAX_VOTES = 50
export const MAX_RUBRICS = 50

const RATIONALE_KEY = /rationale|reasoning|explanation/i

/** Rationale-like strings in `details`, bounded in depth and count, skipping `skip` (already shown). */
function deeperRationales(details: Record<string, unknown>, skip: ReadonlySet<string>): string[] {
  const found: string[] = []
  const stack: Array<[unknown, number]> = Object.entries(details)
    .filter(([key]) => !skip.has(key))
    .map(([, v]) => [v, 1])
  // Strings directly under `details` with a rationale-like key are the top rationale's kin.
  for (const [key, v] of Object.entries(details)) {
    if (!skip.has(key) && typeof v === 'string' && RATIONALE_KEY.test(key)) found.push(v)
  }
  while (stack.length > 0 && found.length < MAX_NOTES) {
    const [value, depth] = stack.pop()!
    if (!value || typeof value !== 'object' || depth > MAX_WALK_DEPTH) continue
    for (const [key, v] of Object.entries(value).slice(0, MAX_KEYS_PER_OBJECT)) {
      if (typeof v === 'string' && RATIONALE_KEY.test(key)) found.push(v)
      else if (v && typeof v === 'object') stack.push([v, depth + 1])
    }
  }
  return found.slice(0, MAX_NOTES)
}

function voteLabel(v: unknown): string {
  if (typeof v === 'string') return v.toLowerCase().replace(/_/g, ' ')
  if (v === 1) return 'valid'
  if (v === 0) return 'invalid'
  return 'no label'
}

function readVotes(d: Record<string, unknown>): JudgeVote[] {
  const labels = Array.isArray(d.sample_labels) ? d.sample_labels : Array.isArray(d.sample_scores) ? d.sample_scores : undefined
  if (!labels) return []
  const reasons = Array.isArray(d.sample_reasoning) ? d.sample_reasoning : []
  const chosen = typeof d.chosen_sample === 'number' ? d.chosen_sample : -1
  return labels.slice(0, MAX_VOTES).map((label, i) => {
    const vote: JudgeVote = { label: voteLabel(label) }
    if (typeof reasons[i] === 'string') vote.reasoning = reasons[i]
    if (i === chosen) vote.chosen = true
    return vote
  })
}

function readRubrics(d: Record<string, unknown>): RubricVerdict[] {
  const list = Array.isArray(d.rubric_scores) ? d.rubric_scores : Array.isArray(d.overall_rubric_scores) ? d.overall_rubric_scores : []
  const out: RubricVerdict[] = []
  for (const r of list.slice(0, MAX_RUBRICS)) {
    if (!r || typeof r !== 'object') continue
    const { rubric_id, score, rationale } = r as Record<string, unknown>
    const verdict = score === 1 ? 'yes' : typeof score === 'number' ? 'no' : 'no verdict'
    out.push({ id: String(rubric_id ?? '?'), verdict, ...(typeof rationale === 'string' ? { rationale } : {}) })
  }
  return out
}

/**
 * @example judgeView({ reasoning: 'same facts', sample_labels: ['VALID', 'INVALID', 'VALID'] })
 * // { rationale: 'same facts', votes: [{ label: 'valid' }, { label: 'invalid' }, { label: 'valid' }], rubrics: [], notes: [] }
 */
export function judgeView(details: unknown): JudgeView | undefined {
  if (!details || typeof details !== 'object' || Array.isArray(details)) return undefined
  const d = details as Record<string, unknown>
  const rationale = typeof d.reasoning === 'string' ? d.reasoning : typeof d.rationale === 'string' ? d.rationale : undefined
  const votes = readVotes(d)
  const rubrics = readRubrics(d)
  const shown = new Set([
    'reasoning',
    'rationale',
    'sample_labels',
    'sample_scores',
    'sample_reasoning',
    'rubric_scores',
    'overall_rubric_scores',
  ])
  const notes = deeperRationales(d, shown)
  if (rationale === undefined && votes.length === 0 && rubrics.length === 0 && notes.length === 0) return undefined
  return { ...(rationale !== undefined ? { rationale } : {}), votes, rubrics, notes }
}

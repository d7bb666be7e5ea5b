/**
 * The bodies of Vertex AI's `:evaluateInstances` as ADK's client (python-aiplatform's evals module)
 * sends them, and the reading of its answers (spec §1.3, §1.6, §1.8):
 * - predefined metrics (safety_v1, multi_turn_*_v1): `metrics[0].predefined_metric_spec`, and an
 *   `instance` with `prompt`, `response`, optional `reference` and `agent_eval_data`; no autorater
 *   config. Single-turn instances get a synthesized one-turn `agent_eval_data`.
 * - coherence (response_evaluation_score): ADK's SDK loads an LLM metric from a GCS file that was
 *   not read; evalstream uses the API's own pointwise coherence input (`coherence_input`, 1-5).
 * Answers: `metric_results[0]` (`score`, `explanation`, `rubric_verdicts`, `error`), or
 * `coherence_result.score`; field names read in snake_case or camelCase.
 */
import type { Assessment, ConversationRecord, ServiceRubricScore } from '../core/criterion.ts'

const text = (t: string) => ({ parts: [{ text: t }] })
const userText = (t: string) => ({ role: 'user', parts: [{ text: t }] })
/** The SDK's nested content list: `{ contents: { contents: [Content...] } }`. */
const contents = (list: unknown[]) => ({ contents: { contents: list } })

function predefined(name: string, instance: Record<string, unknown>): Record<string, unknown> {
  return { metrics: [{ predefined_metric_spec: { metric_spec_name: name } }], instance }
}

/** `agent_eval_data` for a conversation: agents by name, one turn per invocation, its events in order. */
function agentEvalData(conversation: ConversationRecord): Record<string, unknown> {
  const agents = Object.fromEntries(
    Object.entries(conversation.agents).map((
      [name, a],
    ) => [name, { agent_id: name, instruction: a.instruction, tool_declarations: a.tool_declarations }]),
  )
  const turns = conversation.turns.map((t, i) => ({
    turn_index: i,
    turn_id: t.turn_id,
    events: [
      { author: 'user', content: t.user },
      ...t.events.map((e) => ({ author: e.author, content: e.content })),
      ...(t.final === undefined ? [] : [{ author: 'agent', content: t.final }]),
    ],
  }))
  return { agents, turns }
}

/**
 * The request body for an assessment.
 * @example evaluateInstancesBody({ kind: 'safety', prompt: 'q', response: 'a' }).metrics // [{ predefined_metric_spec: { metric_spec_name: 'safety_v1' } }]
 */
export function evaluateInstancesBody(assessment: Assessment): Record<string, unknown> {
  if (assessment.kind === 'coherence') {
    return { coherence_input: { metric_spec: {}, instance: { prediction: assessment.response } } }
  }
  if (assessment.kind === 'safety') {
    const prompt = userText(assessment.prompt)
    const response = text(assessment.response)
    const agent_eval_data = {
      turns: [{ turn_index: 0, turn_id: 'turn_0', events: [{ author: 'user', content: prompt }, { author: 'model', content: response }] }],
    }
    return predefined('safety_v1', { prompt: contents([prompt]), response: contents([response]), agent_eval_data })
  }
  // multi_turn_*: the prompt is the history (every user message and final response) and the last prompt.
  const turns = assessment.conversation.turns
  const history = turns.slice(0, -1).flatMap((t) => [t.user, ...(t.final === undefined ? [] : [t.final])])
  const last = turns.at(-1)
  const instance: Record<string, unknown> = {
    prompt: contents([...history, ...(last ? [last.user] : [])]),
    response: contents(last?.final === undefined ? [] : [last.final]),
    agent_eval_data: agentEvalData(assessment.conversation),
  }
  return predefined(assessment.metric, instance)
}

export type ReadResult = { score: number | null; rubric_scores?: ServiceRubricScore[] } | { error: string }

function pick(o: unknown, snake: string, camel: string): unknown {
  const r = o as Record<string, unknown> | null | undefined
  return r?.[snake] ?? r?.[camel]
}

const finite = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * ADK's reading of a metric result: the score when it is a finite number; each rubric verdict as a
 * rubric score (id: the rubric's property description, else its id, else `rubric_{i}`; 1 when
 * `verdict` is true, 0 when it is absent or false), the explanation and any error as rubric scores.
 */
function readMetricResult(result: unknown): ReadResult {
  const score = finite(pick(result, 'score', 'score'))
  const rubricScores: ServiceRubricScore[] = []
  const verdicts = pick(result, 'rubric_verdicts', 'rubricVerdicts')
  if (Array.isArray(verdicts)) {
    verdicts.forEach((v, i) => {
      const rubric = pick(v, 'evaluated_rubric', 'evaluatedRubric')
      const description = pick(pick(pick(rubric, 'content', 'content'), 'property', 'property'), 'description', 'description')
      const id = typeof description === 'string' && description
        ? description
        : (pick(rubric, 'rubric_id', 'rubricId') as string | undefined) || `rubric_${i}`
      const reasoning = pick(v, 'reasoning', 'reasoning')
      rubricScores.push({
        rubric_id: id,
        ...(typeof reasoning === 'string' ? { rationale: reasoning } : {}),
        score: pick(v, 'verdict', 'verdict') === true ? 1 : 0,
      })
    })
  }
  const explanation = pick(result, 'explanation', 'explanation')
  if (typeof explanation === 'string' && explanation) rubricScores.push({ rubric_id: 'explanation', rationale: explanation })
  const error = pick(result, 'error', 'error') as { code?: unknown; message?: unknown } | undefined
  if (error && error.code !== undefined && error.code !== 0) {
    rubricScores.push({ rubric_id: 'error', rationale: `${String(error.code)}: ${String(error.message ?? '')}` })
  }
  return { score, ...(rubricScores.length > 0 ? { rubric_scores: rubricScores } : {}) }
}

/** The result of an `:evaluateInstances` answer body for an assessment. */
export function readEvaluateInstances(assessment: Assessment, body: unknown): ReadResult {
  if (assessment.kind === 'coherence') {
    const result = pick(body, 'coherence_result', 'coherenceResult')
    const read = readMetricResult(result)
    return 'error' in read ? read : { score: read.score, ...(read.rubric_scores ? { rubric_scores: read.rubric_scores } : {}) }
  }
  const results = pick(body, 'metric_results', 'metricResults')
  if (!Array.isArray(results) || results.length === 0) return { error: 'Vertex evaluateInstances answered without metric_results' }
  return readMetricResult(results[0])
}

/**
 * Live sessions judged through the deployment's judge wiring (env -> executor -> real
 * @google/genai SDK -> loopback Gemini stub), for the fairness and release tests. A session whose
 * reference answers contain HANG gets a judge that never answers (the stub hangs on its prompts).
 */
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import type { ResultEventBody, SessionEngine } from '../../../src/engine/types.ts'
import { type JudgeWiring, judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import type { DeadlineTimer } from '../../../src/judge/within-deadline.ts'
import type { GeminiStub } from '../../support/gemini-stub.ts'

export const HANG = 'HANG-THIS-JUDGE'
export const VALID = JSON.stringify({ reasoning: 'same', is_the_agent_response_valid: 'valid' })
export const CONFIG = { criteria: { final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 1 } } } }

/** The stub answers every judge call at once, except calls about a HANG session. */
export function hangOnMarker(stub: GeminiStub): void {
  stub.handle((request) => (JSON.stringify(request.body).includes(HANG) ? { hang: true } : { candidates: [VALID] }))
}

/**
 * A wiring over the stub; `env` adds the EVALSTREAM_JUDGE_* variables under test, `deadlineTimer`
 * a hand-moved deadline clock (test/support/manual-deadlines.ts).
 */
export function stubWiring(
  stub: GeminiStub,
  env: Record<string, string>,
  deadlineTimer?: DeadlineTimer,
): Extract<JudgeWiring, { ok: true }> {
  const wiring = judgeWiringFromEnv({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: stub.url, ...env }, { deadlineTimer })
  if (!wiring.ok) throw new Error(wiring.error)
  return wiring
}

const event = (invocationId: string, author: string, text: string) => ({
  invocationId,
  author,
  content: { role: author === 'user' ? 'user' : 'model', parts: [{ text }] },
})

export type JudgedSession = {
  engine: SessionEngine
  /** The engine's creation result, release included when the wiring gives one. */
  release?: () => void
  /** One promise per invocation: its final_response_match_v2 result, when it is emitted. */
  judged: Array<Promise<Record<string, unknown>>>
}

/**
 * A session with `invocations` turns, all pushed at once, each needing one judge call.
 * @example const s = startJudgedSession(wiring, 'healthy', { invocations: 1 })
 */
export function startJudgedSession(
  wiring: Extract<JudgeWiring, { ok: true }>,
  id: string,
  { invocations, hang = false }: { invocations: number; hang?: boolean },
): JudgedSession {
  const turns = Array.from({ length: invocations }, (_, i) => i)
  const resolvers: Array<(data: Record<string, unknown>) => void> = []
  const judged = turns.map(() => new Promise<Record<string, unknown>>((resolve) => resolvers.push(resolve)))
  const emit = (body: ResultEventBody) => {
    const data = body.data as Record<string, unknown>
    if (body.type === 'criterion.result' && data.metric_name === 'final_response_match_v2') {
      resolvers[data.invocation_index as number]?.(data)
    }
  }
  const evalCase = {
    eval_id: id,
    conversation: turns.map((i) => ({
      user_content: { role: 'user', parts: [{ text: `question ${i}` }] },
      final_response: { role: 'model', parts: [{ text: hang ? `${HANG} ${i}` : `answer ${i}` }] },
    })),
  }
  const { release, ...judging } = wiring.value.judging(id)
  const created = createSessionEngine({ spec: { session_id: id, eval_config: CONFIG, eval_case: evalCase }, emit, ...judging })
  if (!created.ok) throw new Error(created.problem.detail)
  const events = turns.flatMap((i) => [event(`${id}-${i}`, 'user', `question ${i}`), event(`${id}-${i}`, 'agent', `answer ${i}`)])
  for (const item of decodeAll('json', JSON.stringify(events)).events) created.engine.push(item)
  created.engine.completeInvocation()
  return { engine: created.engine, release, judged }
}

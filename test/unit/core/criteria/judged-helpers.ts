/** Scripted judge answers and small invocations for the judged-criteria tests. */
import { Invocation } from '../../../../src/adk/invocation.ts'
import type { JudgeAnswer, JudgeRequest, JudgeSample, Outcome } from '../../../../src/core/criterion.ts'

export function invocation(input: unknown): Invocation {
  return Invocation.parse(input)
}

export const text = (t: string) => ({ text: t })

/** A one-turn invocation: user text, final text, optional events and app details. */
export function turn(user: string, final: string, extra: Record<string, unknown> = {}): Invocation {
  return invocation({
    invocation_id: 'inv-1',
    user_content: { role: 'user', parts: [{ text: user }] },
    final_response: { role: 'model', parts: [{ text: final }] },
    ...extra,
  })
}

export function judgeOutcome(outcome: Outcome): Extract<Outcome, { kind: 'judge' }> {
  if (outcome.kind !== 'judge') throw new Error(`expected a judge outcome, got ${JSON.stringify(outcome)}`)
  return outcome
}

export function scoreResult(outcome: Outcome) {
  if (outcome.kind !== 'score') throw new Error('expected a score outcome')
  return outcome.result
}

/** Answer every request with the same scripted samples. */
export function answerAll(requests: JudgeRequest[], samples: JudgeSample[], via: JudgeAnswer['via'] = 'gemini'): JudgeAnswer[] {
  return requests.map((r) => ({ id: r.id, via, samples }))
}

export const texts = (...ts: string[]): JudgeSample[] => ts.map((t) => ({ text: t }))

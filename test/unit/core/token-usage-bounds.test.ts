/**
 * token_usage_v1 takes an agent's token counts only as whole numbers from 0 to 2^53-1: 1e308,
 * negative, fractional and text counts are ignored and named in the result's reason, and a sum
 * that would pass 2^53-1 keeps its last value, so the score is always a finite count.
 * Covers: src/core/criteria/token-usage.ts.
 */
import { describe, expect, it } from 'vitest'
import type { AdkEvent } from '../../../src/adk/event.ts'
import type { InvocationScore } from '../../../src/core/criterion.ts'
import { tokenUsageV1 } from '../../../src/core/criteria/token-usage.ts'
import { eventsToInvocations } from '../../../src/core/events-to-invocations.ts'

function score(events: AdkEvent[]): InvocationScore {
  let state = tokenUsageV1.init({ config: { threshold: null }, key: 'token_usage_v1' } as never)
  for (const event of events) state = tokenUsageV1.step!(state, event)
  const outcome = tokenUsageV1.finish(state, eventsToInvocations(events)[0]!, undefined)
  if (outcome.kind !== 'score') throw new Error('token_usage_v1 never asks a judge')
  return outcome.result
}
const call = (usage_metadata: Record<string, unknown>): AdkEvent =>
  ({ invocation_id: 'e-1', author: 'agent', content: { role: 'model', parts: [{ text: 'hi' }] }, usage_metadata }) as AdkEvent

describe('token_usage_v1 count bounds', () => {
  it('ignores 1e308 and negative counts, naming them, and keeps the good ones', () => {
    const result = score([
      call({ promptTokenCount: 1e308, candidatesTokenCount: 7 }),
      call({ promptTokenCount: -50, candidatesTokenCount: 3 }),
    ])
    expect(result.score).toBe(10)
    expect(result.details?.token_usage_details).toMatchObject({ prompt_tokens: null, candidates_tokens: 10, total_tokens: 10 })
    expect(result.reason).toBe(
      'ignored 2 token count(s) that are not whole numbers from 0 to 2^53-1 (promptTokenCount=1e+308, promptTokenCount=-50)',
    )
  })

  it('ignores text and fractional counts; a score with only bad counts is null with both reasons', () => {
    const result = score([call({ promptTokenCount: 'many', candidatesTokenCount: 1.5 })])
    expect(result.score).toBeNull()
    expect(result.reason).toMatch(/has no token counts; ignored 2 token count\(s\) .*promptTokenCount="many", candidatesTokenCount=1.5/)
  })

  it('a sum that would pass 2^53-1 stays finite and exact', () => {
    const big = Number.MAX_SAFE_INTEGER - 1
    const result = score([call({ candidatesTokenCount: big }), call({ candidatesTokenCount: 5 })])
    expect(result.score).toBe(big)
    expect(result.reason).toMatch(/candidates_tokens: the sum would pass 2\^53-1/)
  })

  it('good counts carry no reason', () => {
    expect(score([call({ promptTokenCount: 50, candidatesTokenCount: 7 })])).toMatchObject({ score: 57 })
    expect(score([call({ promptTokenCount: 50, candidatesTokenCount: 7 })]).reason).toBeUndefined()
  })
})

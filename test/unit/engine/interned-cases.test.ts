/**
 * Equal eval cases share one parse across sessions (src/engine/interned-cases.ts): the plans of two
 * sessions of one case hold the same parsed object, a different case gets its own, a refused case
 * is refused every time with its problem, and the number of kept parses is bounded.
 */
import { describe, expect, it } from 'vitest'
import { MAX_INTERNED_CASE_CHARS, MAX_INTERNED_CASES, parseEvalCaseShared, shareEvalCase } from '../../../src/engine/interned-cases.ts'
import { planSession } from '../../../src/engine/plan.ts'

const evalCase = (id: string) => ({
  eval_id: id,
  conversation: [
    {
      invocation_id: 'i0',
      user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'Sunny.' }] },
    },
  ],
})

describe('interned eval cases', () => {
  it('two sessions of one case share its parse; another case has its own', () => {
    const a = planSession({ eval_case: evalCase('same') })
    const b = planSession({ eval_case: JSON.parse(JSON.stringify(evalCase('same'))) })
    const c = planSession({ eval_case: evalCase('other') })
    if (!a.ok || !b.ok || !c.ok) throw new Error('plans refused')
    expect(b.plan.evalCase).toBe(a.plan.evalCase)
    expect(c.plan.evalCase).not.toBe(a.plan.evalCase)
    expect(c.plan.evalCase?.eval_id).toBe('other')
  })

  it('a bad case is refused each time, naming where', () => {
    for (let i = 0; i < 2; i++) {
      const planned = planSession({ eval_case: { eval_id: 'bad', conversation: 'not a list' } })
      expect(planned.ok).toBe(false)
      if (!planned.ok) expect(planned.problem.detail).toMatch(/conversation/)
    }
  })

  it('keeps at most MAX_INTERNED_CASES parses, dropping the least recently used', () => {
    const first = parseEvalCaseShared(evalCase('lru-0'))
    for (let i = 1; i <= MAX_INTERNED_CASES; i++) parseEvalCaseShared(evalCase(`lru-${i}`))
    // lru-0 was pushed out: parsed again, an equal but new object.
    const again = parseEvalCaseShared(evalCase('lru-0'))
    expect(again.success && first.success && again.data !== first.data && again.data.eval_id === 'lru-0').toBe(true)
    const recent = parseEvalCaseShared(evalCase(`lru-${MAX_INTERNED_CASES}`))
    expect(recent.success && parseEvalCaseShared(evalCase(`lru-${MAX_INTERNED_CASES}`)).data === recent.data).toBe(true)
  })

  it('sessions of one case share one frozen copy of it as sent; another case keeps its own', () => {
    const first = JSON.parse(JSON.stringify(evalCase('sent')))
    const again = JSON.parse(JSON.stringify(evalCase('sent')))
    expect(shareEvalCase(first)).toBe(first)
    expect(shareEvalCase(again)).toBe(first)
    expect(Object.isFrozen(first.conversation[0].user_content.parts[0])).toBe(true)
    expect(() => {
      first.conversation[0].user_content.parts[0].text = 'changed'
    }).toThrow(TypeError)
    const other = evalCase('sent-other')
    expect(shareEvalCase(other)).toBe(other)
    expect(shareEvalCase(JSON.parse(JSON.stringify(other)))).toBe(other)
  })

  it('an invalid, unserialisable or oversized case is returned as given, unfrozen', () => {
    const invalid = { eval_id: 'bad', conversation: 'not a list' }
    expect(shareEvalCase(invalid)).toBe(invalid)
    expect(shareEvalCase({ ...invalid })).not.toBe(invalid)
    expect(Object.isFrozen(invalid)).toBe(false)
    const cyclic: Record<string, unknown> = { eval_id: 'cyclic' }
    cyclic.self = cyclic
    expect(shareEvalCase(cyclic)).toBe(cyclic)
    const big = evalCase('big')
    big.conversation[0]!.user_content.parts[0]!.text = 'x'.repeat(MAX_INTERNED_CASE_CHARS)
    expect(shareEvalCase(big)).toBe(big)
    expect(shareEvalCase(JSON.parse(JSON.stringify(big)))).not.toBe(big)
    expect(Object.isFrozen(big)).toBe(false)
  })
})

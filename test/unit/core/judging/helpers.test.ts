/** Covers: src/core/judging/answers.ts, src/core/judging/context.ts, src/core/judging/request-id.ts. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Invocation } from '../../../../src/adk/invocation.ts'
import { nullReason, parseJsonAnswer, samplesFor } from '../../../../src/core/judging/answers.ts'
import {
  developerInstructions,
  NO_STEPS,
  NO_TOOLS,
  responseText,
  toolDeclarationsText,
  toolStepsText,
} from '../../../../src/core/judging/context.ts'
import { fnv1a64, judgeRequestId } from '../../../../src/core/judging/request-id.ts'

describe('request ids', () => {
  it('FNV-1a 64 matches the published test values', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325')
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c')
    expect(fnv1a64('foobar')).toBe('85944171f73967e8')
  })
  it('depends on every field and on field boundaries', () => {
    const base = judgeRequestId('m', 'k', 's', 'p')
    expect(judgeRequestId('m', 'k', 's', 'p')).toBe(base)
    for (
      const other of [
        judgeRequestId('m2', 'k', 's', 'p'),
        judgeRequestId('m', 'k2', 's', 'p'),
        judgeRequestId('m', 'k', 's2', 'p'),
        judgeRequestId('m', 'k', 's', 'p2'),
      ]
    ) {
      expect(other).not.toBe(base)
    }
    expect(judgeRequestId('m', 'ab', 'c', 'p')).not.toBe(judgeRequestId('m', 'a', 'bc', 'p'))
  })
})

describe('answers', () => {
  const schema = z.object({ a: z.number() })
  it('reads JSON, fenced JSON, and rejects what the schema does not accept', () => {
    expect(parseJsonAnswer('{"a": 1}', schema)).toEqual({ a: 1 })
    expect(parseJsonAnswer('```json\n{"a": 2}\n```', schema)).toEqual({ a: 2 })
    expect(parseJsonAnswer('{"a": "x"}', schema)).toBeUndefined()
    expect(parseJsonAnswer('a: 1', schema)).toBeUndefined()
  })
  it('a missing or empty answer reads as a failed sample', () => {
    expect(samplesFor([], 'x')).toEqual([{ error: 'no judge answer for request x' }])
    expect(samplesFor([{ id: 'x', via: 'gemini', samples: [] }], 'x')[0]).toHaveProperty('error')
  })
  it('the reason names the errors only when every sample failed', () => {
    expect(nullReason([{ error: 'a' }, { error: 'a' }], 'fb')).toBe('all 2 judge sample(s) failed: a')
    expect(nullReason([{ error: 'a' }, { text: 'x' }], 'fb')).toBe('fb')
  })
})

describe('context builders', () => {
  const bare = Invocation.parse({ user_content: { parts: [{ text: 'q' }] }, final_response: { parts: [{ text: 'a' }] } })
  it('no tools, no steps', () => {
    expect(toolDeclarationsText(bare)).toBe(NO_TOOLS)
    expect(toolStepsText(bare)).toBe(NO_STEPS)
    expect(developerInstructions(bare)).toBe('')
  })
  it('pairs calls with responses by id; legacy intermediate data works too', () => {
    const legacy = Invocation.parse({
      user_content: { parts: [{ text: 'q' }] },
      intermediate_data: {
        tool_uses: [{ id: 'x', name: 'f', args: { n: 1 } }, { name: 'g' }],
        tool_responses: [{ id: 'x', name: 'f', response: { ok: true } }],
        intermediate_responses: [['agent', [{ text: 'hmm' }]]],
      },
      final_response: { parts: [{ text: 'done' }] },
    })
    const steps = JSON.parse(toolStepsText(legacy)) as { tool_calls_and_response: Array<{ tool_response: unknown }> }
    expect(steps.tool_calls_and_response.map((s) => s.tool_response)).toEqual([{ id: 'x', name: 'f', response: { ok: true } }, 'None'])
    expect(responseText(legacy, true)).toBe('hmm\ndone')
    expect(responseText(legacy, false)).toBe('done')
  })
  it("developer instructions come from the first event's author", () => {
    const inv = Invocation.parse({
      user_content: { parts: [{ text: 'q' }] },
      intermediate_data: { invocation_events: [{ author: 'b', content: { parts: [{ text: 'x' }] } }] },
      app_details: {
        agent_details: {
          a: { name: 'a', instructions: 'A rules' },
          b: { name: 'b', instructions: 'B rules', tool_declarations: [{ name: 't' }] },
        },
      },
    })
    expect(developerInstructions(inv)).toBe('B rules')
    expect(JSON.parse(toolDeclarationsText(inv))).toEqual({ b: [{ name: 't' }] })
  })
})

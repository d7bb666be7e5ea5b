/**
 * camelJson: model fields renamed as pydantic's by_alias dump does, nulls left out, free-form
 * values (tool args and responses, state) untouched, key order kept, and deep input walked
 * without recursion.
 */
import { describe, expect, it } from 'vitest'
import { camelJson } from '../../../../src/http/dev-eval/camel.ts'

describe('camelJson', () => {
  it('renames fields, keeps order, drops nulls and leaves free-form values alone', () => {
    const out = camelJson({
      eval_id: 'c',
      final_eval_status: 1,
      session_details: { keep_me: null },
      user_id: null,
      conversation: [{ user_content: { parts: [{ function_call: { name: 'f', args: { city_name: 'Paris', extra_value: null } } }] } }],
      session_input: { app_name: 'a', state: { some_key: 1 } },
    })
    expect(out).toEqual({
      evalId: 'c',
      finalEvalStatus: 1,
      sessionDetails: { keep_me: null },
      conversation: [{ userContent: { parts: [{ functionCall: { name: 'f', args: { city_name: 'Paris', extra_value: null } } }] } }],
      sessionInput: { appName: 'a', state: { some_key: 1 } },
    })
    expect(Object.keys(out as object)).toEqual(['evalId', 'finalEvalStatus', 'sessionDetails', 'conversation', 'sessionInput'])
  })

  it('walks 100 000 levels without overflowing the stack', () => {
    let deep: unknown = { leaf_value: 1 }
    for (let i = 0; i < 100_000; i++) deep = { next_level: deep }
    let out = camelJson(deep) as Record<string, unknown>
    for (let i = 0; i < 100_000; i++) out = out.nextLevel as Record<string, unknown>
    expect(out).toEqual({ leafValue: 1 })
  })
})

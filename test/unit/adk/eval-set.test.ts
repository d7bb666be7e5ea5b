import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EvalCase, EvalSet } from '../../../src/adk/eval-set.ts'
import { toolCallsOf } from '../../../src/adk/invocation.ts'
import { evalSetIdFromSource, MAX_EVAL_SET_LIST_ITEMS, parseEvalSet } from '../../../src/adk/parse-eval-set.ts'
import { sharedPath } from '../../support/shared-data.ts'

const FIXTURES = sharedPath('adk-fixtures')
const readFixture = (name: string): unknown => JSON.parse(readFileSync(FIXTURES + name, 'utf8'))

const tp = 'tests/integration/fixture/'
// [file, [eval_id, invocations (null: conversation scenario), tool calls over all invocations][]]
const EVAL_SET_FILES: [string, [string, number | null, number][]][] = [
  ['bigquery_agent__simple.test.json', [['penguins exploration', 10, 9]]],
  ['ecommerce_customer_service_agent__order_query.test.json', [[`${tp}ecommerce_customer_service_agent/order_query.test.json`, 4, 7]]],
  ['generated__weather_set_ui.evalset.json', [['weather_paris', 1, 1], ['ui_captured_case', 1, 1]]],
  ['hello_world_agent__roll_die.test.json', [[`${tp}hello_world_agent/roll_die.test.json`, 3, 1]]],
  ['hello_world_agent_async__roll_die.test.json', [[`${tp}hello_world_agent_async/roll_die.test.json`, 1, 0]]],
  ['home_automation_agent__simple_test.test.json', [[`${tp}home_automation_agent/simple_test.test.json`, 1, 1]]],
  ['home_automation_agent__test_files__dependent_tool_calls.test.json', [[
    `${tp}home_automation_agent/test_files/dependent_tool_calls.test.json`,
    2,
    2,
  ]]],
  ['home_automation_agent__test_files__memorizing_past_events__eval_data.test.json', [[
    `${tp}home_automation_agent/test_files/memorizing_past_events/eval_data.test.json`,
    2,
    1,
  ]]],
  ['home_automation_agent__test_files__simple_multi_turn_conversation.test.json', [[
    `${tp}home_automation_agent/test_files/simple_multi_turn_conversation.test.json`,
    2,
    2,
  ]]],
  ['home_automation_agent__test_files__simple_test.test.json', [[`${tp}home_automation_agent/test_files/simple_test.test.json`, 2, 1]]],
  ['home_automation_agent__test_files__simple_test2.test.json', [[`${tp}home_automation_agent/test_files/simple_test2.test.json`, 1, 1]]],
  ['samples_live__live_non_blocking_tool_agent.evalset.json', [['background_task_scenario', null, 0], ['background_task_scripted', 2, 0]]],
  ['trip_planner_agent__test_files__trip_inquiry_sub_agent.test.json', [[
    `${tp}trip_planner_agent/test_files/trip_inquiry_sub_agent.test.json`,
    1,
    0,
  ]]],
  ['trip_planner_agent__trip_inquiry_multi_turn.test.json', [[`${tp}trip_planner_agent/trip_inquiry.test.json`, 2, 1]]],
]

describe('every EvalSet fixture loads', () => {
  it.each(EVAL_SET_FILES)('%s', (file, expected) => {
    const r = parseEvalSet(readFixture(file), { source: file })
    if (!r.ok) throw new Error(r.error.message)
    expect(r.format).toBe('eval-set')
    const got = r.evalSet.eval_cases.map((c) => [
      c.eval_id,
      c.conversation?.length ?? null,
      (c.conversation ?? []).reduce((n, inv) => n + toolCallsOf(inv).length, 0),
    ])
    expect(got).toEqual(expected)
  })

  it('reads migrated files with every genai field null (home automation)', () => {
    const r = parseEvalSet(readFixture('home_automation_agent__simple_test.test.json'))
    if (!r.ok) throw new Error(r.error.message)
    const inv = r.evalSet.eval_cases[0]!.conversation![0]!
    expect(inv.user_content.parts?.[0]?.text).toBe('Turn off device_2 in the Bedroom.')
    expect(toolCallsOf(inv)).toEqual([
      expect.objectContaining({ name: 'set_device_info', args: { location: 'Bedroom', device_id: 'device_2', status: 'OFF' } }),
    ])
    expect(r.evalSet.description).toBeUndefined()
  })

  it('reads the web-UI shape (invocation_events) with call ids', () => {
    const r = parseEvalSet(readFixture('generated__weather_set_ui.evalset.json'))
    if (!r.ok) throw new Error(r.error.message)
    const ui = r.evalSet.eval_cases[1]!
    expect(toolCallsOf(ui.conversation![0]!)).toEqual([{ id: 'adk-7f0c', name: 'get_weather', args: { city: 'Paris' } }])
    expect(ui.creation_timestamp).toBe(1760000100)
    expect(r.evalSet.creation_timestamp).toBe(1760000200)
    expect(ui.session_input).toEqual({ app_name: 'weather_agent', user_id: 'user', state: {} })
  })

  it('reads a conversation scenario with a persona id', () => {
    const r = parseEvalSet(readFixture('samples_live__live_non_blocking_tool_agent.evalset.json'))
    if (!r.ok) throw new Error(r.error.message)
    const scenario = r.evalSet.eval_cases[0]!.conversation_scenario
    expect(scenario?.user_persona).toBe('NOVICE')
    expect(scenario?.starting_prompt).toBe('Hi, can you kick off a long background task for me?')
    expect(r.evalSet.eval_cases[1]!.conversation![0]!.final_response).toBeUndefined()
  })
})

const invocation = { user_content: { parts: [{ text: 'hi' }] } }

describe('casing rules (spec §1.1)', () => {
  it('rejects a camelCase EvalSet top level and says why', () => {
    const r = parseEvalSet({ evalSetId: 's', evalCases: [] })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.message).toContain('$.eval_set_id: required field is missing')
    expect(r.error.message).toContain('snake_case (found evalSetId, evalCases)')
  })

  it('ignores unknown top-level keys', () => {
    const r = EvalSet.safeParse({ eval_set_id: 's', eval_cases: [], extra: 1 })
    expect(r.success && r.data).toEqual({ eval_set_id: 's', eval_cases: [], creation_timestamp: 0 })
  })

  it('accepts camelCase and mixed casing below the top level', () => {
    const r = EvalSet.parse({
      eval_set_id: 's',
      eval_cases: [
        {
          evalId: 'c',
          sessionInput: { appName: 'a', user_id: 'u' },
          conversation: [{
            invocationId: 'i',
            userContent: { parts: [{ text: 'q' }] },
            intermediateData: { toolUses: [{ name: 'f', args: {} }] },
          }],
        },
      ],
    })
    const c = r.eval_cases[0]!
    expect(c.eval_id).toBe('c')
    expect(c.session_input).toEqual({ app_name: 'a', user_id: 'u', state: {} })
    expect(c.conversation![0]!.invocation_id).toBe('i')
    expect(toolCallsOf(c.conversation![0]!)).toEqual([{ name: 'f', args: {} }])
  })

  it('rejects an unknown key in an eval case, naming its path', () => {
    const r = parseEvalSet({ eval_set_id: 's', eval_cases: [{ eval_id: 'c', conversation: [invocation], convo: 1 }] })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toContain('$.eval_cases[0].convo: unknown key')
  })

  it('rejects an unknown key inside an invocation', () => {
    const r = parseEvalSet({ eval_set_id: 's', eval_cases: [{ eval_id: 'c', conversation: [{ ...invocation, finalResponce: {} }] }] })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.issues[0]?.path).toBe('$.eval_cases[0].conversation[0].finalResponce')
  })
})

describe('EvalCase', () => {
  it.each([
    ['both', { eval_id: 'c', conversation: [], conversation_scenario: { starting_prompt: 'a', conversation_plan: 'b' } }],
    ['neither', { eval_id: 'c' }],
  ])('needs exactly one of conversation / conversation_scenario (%s)', (word, json) => {
    const r = EvalCase.safeParse(json)
    expect(r.success).toBe(false)
    expect(r.error?.issues[0]?.message).toContain(`(found ${word})`)
  })

  it('keeps rubrics and final_session_state', () => {
    const c = EvalCase.parse({
      eval_id: 'c',
      conversation: [invocation],
      rubrics: [{ rubricId: 'r', rubricContent: { textProperty: 'is polite' } }],
      final_session_state: { done: true },
    })
    expect(c.rubrics).toEqual([{ rubric_id: 'r', rubric_content: { text_property: 'is polite' } }])
    expect(c.final_session_state).toEqual({ done: true })
  })

  it('accepts a full user persona object', () => {
    const persona = {
      id: 'p',
      description: 'd',
      behaviors: [{ name: 'n', description: 'd', behavior_instructions: ['x'], violation_rubrics: [] }],
    }
    const c = EvalCase.parse({
      eval_id: 'c',
      conversation_scenario: { starting_prompt: 'a', conversation_plan: 'b', userPersona: persona },
    })
    expect(c.conversation_scenario?.user_persona).toEqual(persona)
  })
})

describe('evalSetIdFromSource', () => {
  it.each([
    ['a/b/weather.evalset.json', 'weather'],
    ['C:\\x\\simple_test2.test.json', 'simple_test2'],
    ['cfg.json', 'cfg'],
    ['noext', 'noext'],
  ])('%s -> %s', (source, id) => expect(evalSetIdFromSource(source)).toBe(id))
})

describe('parseEvalSet on a huge eval set (found by bench/fuzz.ts)', () => {
  it('a legacy list with a 600,000-element field is bad input naming the list, not a stack overflow', () => {
    const huge = [{ query: 'q', expected_tool_use: new Array(600_000).fill(0) }]
    const parsed = parseEvalSet(huge, { source: 'huge.test.json' })
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.error.message).toBe(
      'eval set file huge.test.json: too large to check: $[0].expected_tool_use has 600000 items, more than MAX_EVAL_SET_LIST_ITEMS (10000); split it into smaller eval sets',
    )
    expect(parsed.error.issues).toEqual([{ path: '$[0].expected_tool_use', message: expect.stringContaining('MAX_EVAL_SET_LIST_ITEMS') }])
  })

  it(`one item over MAX_EVAL_SET_LIST_ITEMS (${MAX_EVAL_SET_LIST_ITEMS}) is refused wherever the list is, before the schemas`, () => {
    const turn = {
      invocation_id: 'i',
      user_content: { parts: [{ text: 'q' }] },
      intermediate_data: { tool_uses: new Array(MAX_EVAL_SET_LIST_ITEMS + 1).fill(0) },
    }
    const over = parseEvalSet({ eval_set_id: 's', eval_cases: [{ eval_id: 'c', conversation: [turn] }] }, { source: 's.evalset.json' })
    expect(over.ok).toBe(false)
    if (!over.ok) expect(over.error.issues[0]!.path).toBe('$.eval_cases[0].conversation[0].intermediate_data.tool_uses')
  })
})

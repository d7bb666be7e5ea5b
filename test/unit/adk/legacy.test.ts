import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { contentText } from '../../../src/adk/content.ts'
import { toolCallsOf } from '../../../src/adk/invocation.ts'
import { convertNamedLegacy } from '../../../src/adk/legacy.ts'
import { parseEvalSet } from '../../../src/adk/parse-eval-set.ts'
import { sharedPath } from '../../support/shared-data.ts'

const FIXTURES = sharedPath('adk-fixtures')
const readFixture = (name: string): unknown => JSON.parse(readFileSync(FIXTURES + name, 'utf8'))

describe('named legacy list (adk eval converts it)', () => {
  const file = 'generated__legacy_named_list_format.json'
  const r = parseEvalSet(readFixture(file), { source: `dir/${file}` })
  if (!r.ok) throw new Error(r.error.message)
  const { evalSet } = r

  it('is detected and named after the file', () => {
    expect(r.format).toBe('named-legacy-list')
    expect(evalSet.eval_set_id).toBe('generated__legacy_named_list_format')
    expect(evalSet.name).toBe(evalSet.eval_set_id)
  })

  it('turns each named case into an EvalCase with its initial session', () => {
    expect(evalSet.eval_cases.map((c) => c.eval_id)).toEqual(['roll_17_sided_dice_twice'])
    expect(evalSet.eval_cases[0]!.session_input).toEqual({ app_name: 'hello_world', user_id: 'user', state: {} })
  })

  it('turns each row into one invocation with deterministic ids and no call ids', () => {
    const conversation = evalSet.eval_cases[0]!.conversation!
    expect(conversation.map((i) => i.invocation_id)).toEqual(['roll_17_sided_dice_twice-0', 'roll_17_sided_dice_twice-1'])
    expect(conversation[1]!.user_content).toEqual({ role: 'user', parts: [{ text: 'Roll a 17 sided dice twice for me' }] })
    expect(contentText(conversation[1]!.final_response)).toBe(
      'I have rolled a 17 sided die twice. The first roll was 13 and the second roll was 4.',
    )
    expect(conversation[1]!.final_response?.role).toBe('model')
    const calls = toolCallsOf(conversation[1]!)
    expect(calls.map((c) => [c.name, c.args, c.id])).toEqual([
      ['roll_die', { sides: 17 }, undefined],
      ['roll_die', { sides: 17 }, undefined],
    ])
    expect(toolCallsOf(conversation[0]!)).toEqual([])
    expect(conversation.every((i) => i.creation_timestamp === 0)).toBe(true)
  })
})

describe('flat legacy list (AgentEvaluator only)', () => {
  const file = 'home_automation_agent__simple_test2.test.json'
  const source = `tests/fixture/${file}`
  const r = parseEvalSet(readFixture(file), { source, timestamp: 1700000000.5 })
  if (!r.ok) throw new Error(r.error.message)
  const { evalSet } = r

  it('becomes one case named after the file path', () => {
    expect(r.format).toBe('flat-legacy-list')
    expect(evalSet.eval_set_id).toBe('home_automation_agent__simple_test2')
    expect(evalSet.eval_cases.map((c) => c.eval_id)).toEqual([source])
    expect(evalSet.eval_cases[0]!.session_input).toBeUndefined()
  })

  it('keeps query, reference and tool use, with the given timestamp', () => {
    const [inv] = evalSet.eval_cases[0]!.conversation!
    expect(contentText(inv!.user_content)).toBe('Turn off device_3 in the Bedroom.')
    expect(contentText(inv!.final_response)).toBe('I have set the device_3 status to off.')
    expect(toolCallsOf(inv!)).toEqual([{ name: 'set_device_info', args: { location: 'Bedroom', device_id: 'device_3', status: 'OFF' } }])
    expect(inv!.creation_timestamp).toBe(1700000000.5)
    expect(evalSet.creation_timestamp).toBe(1700000000.5)
    expect(evalSet.eval_cases[0]!.creation_timestamp).toBe(1700000000.5)
  })

  it('uses the initial session and explicit ids when given', () => {
    const r2 = parseEvalSet([{ query: 'q' }], { evalSetId: 'set', initialSession: { app_name: 'app', state: { a: 1 } } })
    if (!r2.ok) throw new Error(r2.error.message)
    expect(r2.evalSet.eval_set_id).toBe('set')
    expect(r2.evalSet.eval_cases[0]!.eval_id).toBe('set')
    expect(r2.evalSet.eval_cases[0]!.session_input).toEqual({ app_name: 'app', user_id: '', state: { a: 1 } })
  })
})

describe('row conversion details', () => {
  it('writes "" for a missing reference (not a missing final response)', () => {
    const set = convertNamedLegacy([{ name: 'c', data: [{ query: 'q' }] }], { evalSetId: 's' })
    const inv = set.eval_cases[0]!.conversation![0]!
    expect(inv.final_response).toEqual({ role: 'model', parts: [{ text: '' }] })
  })

  it('keeps intermediate agent responses as [author, parts] pairs', () => {
    const set = convertNamedLegacy(
      [{ name: 'c', data: [{ query: 'q', expected_intermediate_agent_responses: [{ author: 'sub', text: 'thinking' }] }] }],
      { evalSetId: 's' },
    )
    const data = set.eval_cases[0]!.conversation![0]!.intermediate_data
    expect(data && 'intermediate_responses' in data && data.intermediate_responses).toEqual([['sub', [{ text: 'thinking' }]]])
  })

  it('gives no session input for an empty initial_session', () => {
    const set = convertNamedLegacy([{ name: 'c', data: [], initial_session: {} }], { evalSetId: 's' })
    expect(set.eval_cases[0]!.session_input).toBeUndefined()
  })

  it('keeps a null tool_input as absent args (not {})', () => {
    const set = convertNamedLegacy(
      [{ name: 'c', data: [{ query: 'q', expected_tool_use: [{ tool_name: 'f', tool_input: null }] }] }],
      { evalSetId: 's' },
    )
    expect(toolCallsOf(set.eval_cases[0]!.conversation![0]!)[0]!.args).toBeUndefined()
  })
})

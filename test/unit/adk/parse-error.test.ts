import { describe, expect, it } from 'vitest'
import { jsonErrorOffset } from '../../../src/adk/json-position.ts'
import { parseEvalSet } from '../../../src/adk/parse-eval-set.ts'
import { describeValue, formatPath, MAX_LISTED_ISSUES, parseJsonText } from '../../../src/adk/parse-error.ts'

const userContent = { parts: [{ text: 'hi' }] }
const setWith = (invocation: unknown) => ({
  eval_set_id: 's',
  eval_cases: [{ eval_id: 'c', conversation: [{ user_content: userContent }, invocation] }],
})

function errorOf(json: unknown, source?: string) {
  const r = parseEvalSet(json, { source })
  if (r.ok) throw new Error('expected a parse error')
  return r.error
}

describe('paths and values', () => {
  it.each([
    [[], '$'],
    [['eval_cases', 0, 'conversation', 1, 'user_content', 'parts', 0], '$.eval_cases[0].conversation[1].user_content.parts[0]'],
    [['state', 'my key'], '$.state["my key"]'],
  ])('%j -> %s', (path, text) => expect(formatPath(path)).toBe(text))

  it.each([
    [undefined, 'nothing (the key is missing)'],
    [null, 'null'],
    [[1, 2], 'an array of 2'],
    ['x'.repeat(50), `the string "${'x'.repeat(40)}..."`],
    [{}, 'an object'],
    [3, 'number 3'],
    [false, 'boolean false'],
  ])('describes %j', (value, text) => expect(describeValue(value)).toBe(text))
})

describe('eval set errors', () => {
  it('names the file, the JSON path, expected and received', () => {
    const e = errorOf(setWith({ user_content: { parts: [{ text: 5 }] } }), 'evals/x.evalset.json')
    expect(e.source).toBe('evals/x.evalset.json')
    expect(e.message).toContain('eval set file evals/x.evalset.json does not match any format ADK reads')
    expect(e.issues[0]).toEqual({
      path: '$.eval_cases[0].conversation[1].user_content.parts[0].text',
      message: 'expected string, received number 5',
    })
    expect(e.message).not.toMatch(/\n\s+at /) // no stack
  })

  it('reports errors inside the intermediate_data shape the author meant', () => {
    const tool = setWith({ user_content: userContent, intermediate_data: { tool_uses: [{ args: {} }] } })
    expect(errorOf(tool).issues).toEqual([
      {
        path: '$.eval_cases[0].conversation[1].intermediate_data.tool_uses[0].name',
        message: 'required field is missing (expected string)',
      },
    ])
    const events = setWith({ user_content: userContent, intermediate_data: { invocation_events: [{ content: null }] } })
    expect(errorOf(events).issues[0]?.path).toBe('$.eval_cases[0].conversation[1].intermediate_data.invocation_events[0].author')
  })

  it('picks the union branch that got furthest (user_persona: object or id)', () => {
    const e = errorOf({
      eval_set_id: 's',
      eval_cases: [{
        eval_id: 'c',
        conversation_scenario: {
          starting_prompt: 'a',
          conversation_plan: 'b',
          user_persona: { id: 'p', description: 'd', behaviors: [{ name: 1 }] },
        },
      }],
    })
    expect(e.issues[0]?.path).toBe('$.eval_cases[0].conversation_scenario.user_persona.behaviors[0].name')
  })

  it('lists every format tried, the likely one first', () => {
    const e = errorOf([{ query: 'q', reference: 3 }], 'old.test.json')
    const lines = e.message.split('\n')
    expect(lines[1]).toMatch(/^- flat legacy list/)
    expect(lines[2]).toBe('    $[0].reference: expected string, received number 3')
    expect(e.message).toContain('- EvalSet ({eval_set_id, eval_cases, ...}):\n    $: expected object, received an array of 1')
    expect(e.message).toContain('- named legacy list ([{name, data, initial_session}]):\n    $[0].name: required field is missing')
  })

  it('caps the number of listed problems', () => {
    const cases = Array.from({ length: 20 }, () => ({ eval_id: 1, conversation: [] }))
    const e = errorOf({ eval_set_id: 's', eval_cases: cases })
    expect(e.issues.length).toBe(20)
    expect(e.message).toContain(`... and ${20 - MAX_LISTED_ISSUES} more`)
  })
})

describe('JSON syntax errors', () => {
  it.each([
    ['{"a": }', 1, 7],
    ['{\n  "a": 1,\n}', 3, 1],
    ['[1, 2', 1, 6],
    ['', 1, 1],
    ['{"a": 1}\n x', 2, 2],
    ['\uFEFF{"a": tru}', 1, 7],
  ])('%j fails at line %i column %i', (text, line, column) => {
    const r = parseJsonText(text, 'eval config', 'c.json')
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.message).toMatch(new RegExp(`^eval config file c\\.json: not valid JSON at line ${line} column ${column} \\(`))
    }
  })

  it('parses valid JSON (after a byte-order mark too)', () => {
    expect(parseJsonText('\uFEFF{"a": [1]}', 'x')).toEqual({ ok: true, json: { a: [1] } })
  })

  it('agrees with JSON.parse on what is valid', () => {
    const samples = [
      '{"a":[1,-2.5e3,{"b":"\\u00e9\\n"}],"c":null}',
      ' [] ',
      '"x"',
      '01',
      '{"a" 1}',
      '[1,]',
      '"\\x"',
      '-',
      '1.',
      '"a\tb"',
      'nul',
      '[true,false]',
    ]
    for (const s of samples) {
      let valid = true
      try {
        JSON.parse(s)
      } catch {
        valid = false
      }
      expect(jsonErrorOffset(s) === null, s).toBe(valid)
    }
  })
})

/**
 * The dashboard's expected-versus-actual table from tool_trajectory_avg_score's real details (the
 * criterion is run on both lists), per match type: EXACT marks the first position that differs,
 * IN_ORDER the first expected call never found (after the last one found), ANY_ORDER marks every
 * missing and unexpected call and has no order to diverge from.
 */
import { describe, expect, it } from 'vitest'
import { Invocation } from '../../../../src/adk/invocation.ts'
import { MAX_LISTED_CALLS, toolTrajectoryAvgScore as criterion } from '../../../../src/core/criteria/tool-trajectory.ts'
import type { InvocationScore } from '../../../../src/core/criterion.ts'
import { callText, trajectoryTable } from '../../../../src/http/dashboard/browser/trajectory-rows.ts'

type Call = { name: string; args?: Record<string, unknown> }
const call = (name: string, args: Record<string, unknown> = {}): Call => ({ name, args })
const invocation = (calls: Call[]) =>
  Invocation.parse({ user_content: { parts: [{ text: 'q' }] }, intermediate_data: { tool_uses: calls } })

function details(matchType: string, expected: Call[], actual: Call[]): Record<string, unknown> {
  const config = criterion.config.parse({ threshold: 1, match_type: matchType })
  const state = criterion.init({ config, expected: invocation(expected), key: 'k' })
  const outcome = criterion.finish(state, invocation(actual))
  if (outcome.kind !== 'score') throw new Error('tool trajectory is not judged')
  return (outcome.result as InvocationScore).details!
}

/** Each row as `expected | actual | mark`, with `*` on the divergence. */
function rows(matchType: string, expected: Call[], actual: Call[]): string[] {
  const table = trajectoryTable(details(matchType, expected, actual))!
  expect(table.matchType).toBe(matchType)
  return table.rows.map((r, i) =>
    `${r.expected?.call.name ?? '-'} | ${r.actual?.call.name ?? '-'} | ${r.mark}${r.allowed ? ' ok' : ''}${
      i === table.divergence ? ' *' : ''
    }`
  )
}

const [a, b, c, d] = [call('a'), call('b'), call('c'), call('d')]

describe('trajectoryTable', () => {
  it('EXACT: one row per position, the first that differs is the divergence', () => {
    expect(rows('EXACT', [a, b, c], [a, d, c])).toEqual(['a | a | match', 'b | d | mismatch *', 'c | c | match'])
    expect(rows('EXACT', [a, b], [a, b, c])).toEqual(['a | a | match', 'b | b | match', '- | c | extra *'])
    expect(rows('EXACT', [a, b, c], [a])).toEqual(['a | a | match', 'b | - | missing *', 'c | - | missing'])
    // Same name, other args: a different call.
    expect(rows('EXACT', [call('a', { x: 1 })], [call('a', { x: 2 })])).toEqual(['a | a | mismatch *'])
  })

  it('IN_ORDER: other calls between are allowed; the first expected call never found is the divergence', () => {
    expect(rows('IN_ORDER', [a, c], [a, b, c])).toEqual(['a | a | match', '- | b | extra ok', 'c | c | match'])
    expect(rows('IN_ORDER', [a, b, c], [a, d, c, b])).toEqual([
      'a | a | match',
      '- | d | extra ok',
      '- | c | extra ok',
      'b | b | match',
      'c | - | missing *',
    ])
    expect(rows('IN_ORDER', [a, b], [a, d])).toEqual(['a | a | match', 'b | - | missing *', '- | d | extra ok'])
  })

  it('ANY_ORDER: matched pairs, then each missing and each unexpected call, no divergence', () => {
    expect(rows('ANY_ORDER', [a, b, c], [c, d, a])).toEqual(['a | a | match', 'c | c | match', 'b | - | missing', '- | d | extra ok'])
    const table = trajectoryTable(details('ANY_ORDER', [a], [b]))!
    expect(table.divergence).toBe(-1)
  })

  it('keeps each side its place in its own list', () => {
    const table = trajectoryTable(details('IN_ORDER', [a, b], [d, a, b]))!
    expect(table.rows.map((r) => [r.expected?.index, r.actual?.index])).toEqual([[undefined, 0], [0, 1], [1, 2]])
  })

  it('says when the engine cut a list', () => {
    const many = Array.from({ length: MAX_LISTED_CALLS + 5 }, (_, i) => call(`t${i}`))
    const table = trajectoryTable(details('EXACT', [a], many))!
    expect(table.cut).toEqual(['extra'])
    // Position 0 pairs the missing `a` with the first extra call; the listed extras fill the rest.
    expect(table.rows).toHaveLength(MAX_LISTED_CALLS)
    expect(table.rows[0]).toMatchObject({ mark: 'mismatch', expected: { call: { name: 'a' } }, actual: { call: { name: 't0' } } })
  })

  it('is undefined for details that are not a trajectory, and skips malformed entries', () => {
    expect(trajectoryTable(undefined)).toBeUndefined()
    expect(trajectoryTable({ reasoning: 'x' })).toBeUndefined()
    const table = trajectoryTable({ match_type: 'EXACT', matched: [7, { args: {} }], missing: [{ name: 'a', expected_index: 0 }] })!
    expect(table.rows).toEqual([{ expected: { index: 0, call: { name: 'a', args: null } }, actual: undefined, mark: 'missing' }])
  })
})

describe('callText', () => {
  it('shows name and JSON args, none for null, and cuts long ones', () => {
    expect(callText({ name: 'get_weather', args: { city: 'Paris' } })).toBe('get_weather({"city":"Paris"})')
    expect(callText({ name: 'ping', args: null })).toBe('ping()')
    expect(callText({ name: 'f', args: { s: 'x'.repeat(500) } }, 20)).toHaveLength(20)
  })
})

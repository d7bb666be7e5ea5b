/**
 * A tool trajectory result's details (matched / missing / extra calls, each with its place in the
 * expected and actual lists: src/core/criteria/tool-trajectory.ts) as rows of an expected-versus-
 * actual table, with the first divergence found the way the match type decides:
 * - EXACT pairs by position: one row per position, the first row that is not an equal pair diverges.
 * - IN_ORDER looks for each expected call after the previous one, other calls allowed between:
 *   rows follow the actual calls; the expected calls never found come right after the last found
 *   one, the first of them is where the trajectory diverged.
 * - ANY_ORDER has no order to diverge from: matched pairs, then every missing call and every
 *   unexpected one, each marked (extra calls are allowed, missing ones fail).
 * Pure (no DOM): the page draws the rows, unit tests check them.
 */

export type ShownCall = { name: string; args: unknown }

/** match: an equal pair; mismatch: different calls at one position (EXACT); missing / extra: one side only. */
export type RowMark = 'match' | 'mismatch' | 'missing' | 'extra'

export type TrajectoryRow = {
  expected?: { index: number; call: ShownCall }
  actual?: { index: number; call: ShownCall }
  mark: RowMark
  /** An extra call the match type allows (IN_ORDER, ANY_ORDER): shown, but not why it failed. */
  allowed?: boolean
}

export type TrajectoryTable = {
  matchType: string
  rows: TrajectoryRow[]
  /** Index in `rows` of the first divergence, -1 when there is none (ANY_ORDER, or a match). */
  divergence: number
  /** The engine lists at most 100 calls per list; these lists were cut. */
  cut: string[]
}

/** Rows drawn at most (the engine's lists are bounded too; this keeps a hostile result cheap). */
export const MAX_TRAJECTORY_ROWS = 400

type Listed = { call: ShownCall; expected?: number; actual?: number }

function readList(details: Record<string, unknown>, key: string): Listed[] {
  const raw = details[key]
  if (!Array.isArray(raw)) return []
  const out: Listed[] = []
  for (const item of raw.slice(0, MAX_TRAJECTORY_ROWS)) {
    if (!item || typeof item !== 'object') continue
    const { name, args, expected_index, actual_index } = item as Record<string, unknown>
    if (typeof name !== 'string') continue
    out.push({
      call: { name, args: args ?? null },
      expected: Number.isInteger(expected_index) ? (expected_index as number) : undefined,
      actual: Number.isInteger(actual_index) ? (actual_index as number) : undefined,
    })
  }
  return out
}

const byExpected = (a: Listed, b: Listed) => (a.expected ?? 0) - (b.expected ?? 0)
const byActual = (a: Listed, b: Listed) => (a.actual ?? 0) - (b.actual ?? 0)
const side = (l: Listed, key: 'expected' | 'actual') => (l[key] === undefined ? undefined : { index: l[key]!, call: l.call })

function exactRows(matched: Listed[], missing: Listed[], extra: Listed[]): TrajectoryRow[] {
  const expectedAt = new Map<number, Listed>()
  const actualAt = new Map<number, Listed>()
  const pairedAt = new Set<number>()
  for (const m of matched) {
    if (m.expected !== undefined) expectedAt.set(m.expected, m)
    if (m.actual !== undefined) actualAt.set(m.actual, m)
    if (m.expected !== undefined && m.expected === m.actual) pairedAt.add(m.expected)
  }
  for (const m of missing) if (m.expected !== undefined) expectedAt.set(m.expected, m)
  for (const x of extra) if (x.actual !== undefined) actualAt.set(x.actual, x)
  const positions = [...new Set([...expectedAt.keys(), ...actualAt.keys()])].sort((a, b) => a - b).slice(0, MAX_TRAJECTORY_ROWS)
  return positions.map((p) => {
    const e = expectedAt.get(p)
    const a = actualAt.get(p)
    const mark: RowMark = pairedAt.has(p) ? 'match' : e && a ? 'mismatch' : e ? 'missing' : 'extra'
    return { expected: e && side(e, 'expected'), actual: a && side(a, 'actual'), mark }
  })
}

function inOrderRows(matched: Listed[], missing: Listed[], extra: Listed[]): TrajectoryRow[] {
  const actual = [...matched.map((m) => ({ m, paired: true })), ...extra.map((m) => ({ m, paired: false }))]
    .sort((a, b) => byActual(a.m, b.m))
  const rows: TrajectoryRow[] = actual.map(({ m, paired }) =>
    paired
      ? { expected: side(m, 'expected'), actual: side(m, 'actual'), mark: 'match' }
      : { actual: side(m, 'actual'), mark: 'extra', allowed: true }
  )
  // Where the next expected call was looked for: after the last call that was found.
  let after = -1
  rows.forEach((r, i) => (r.mark === 'match' ? (after = i) : undefined))
  const notFound: TrajectoryRow[] = [...missing].sort(byExpected).map((m) => ({ expected: side(m, 'expected'), mark: 'missing' }))
  rows.splice(after + 1, 0, ...notFound)
  return rows
}

function anyOrderRows(matched: Listed[], missing: Listed[], extra: Listed[]): TrajectoryRow[] {
  return [
    ...[...matched].sort(byExpected).map((m): TrajectoryRow => ({
      expected: side(m, 'expected'),
      actual: side(m, 'actual'),
      mark: 'match',
    })),
    ...[...missing].sort(byExpected).map((m): TrajectoryRow => ({ expected: side(m, 'expected'), mark: 'missing' })),
    ...[...extra].sort(byActual).map((m): TrajectoryRow => ({ actual: side(m, 'actual'), mark: 'extra', allowed: true })),
  ]
}

/**
 * The table for a tool trajectory result, or undefined when the details are not one (no lists).
 * @example trajectoryTable({ match_type: 'EXACT', matched: [], missing: [{ name: 'a', args: {}, expected_index: 0 }], extra: [] })
 */
export function trajectoryTable(details: unknown): TrajectoryTable | undefined {
  if (!details || typeof details !== 'object') return undefined
  const d = details as Record<string, unknown>
  if (!Array.isArray(d.matched) && !Array.isArray(d.missing) && !Array.isArray(d.extra)) return undefined
  const matchType = typeof d.match_type === 'string' ? d.match_type : 'EXACT'
  const [matched, missing, extra] = [readList(d, 'matched'), readList(d, 'missing'), readList(d, 'extra')]
  const rows = (matchType === 'IN_ORDER' ? inOrderRows : matchType === 'ANY_ORDER' ? anyOrderRows : exactRows)(matched, missing, extra)
    .slice(0, MAX_TRAJECTORY_ROWS)
  const divergence = matchType === 'ANY_ORDER' ? -1 : rows.findIndex((r) => r.mark !== 'match' && !r.allowed)
  const cut = ['matched', 'missing', 'extra'].filter((k) => typeof d[`${k}_count`] === 'number')
  return { matchType, rows, divergence, cut }
}

/** A call as one line: name(args as JSON), cut at `max` characters. */
export function callText(call: ShownCall, max = 300): string {
  let args = ''
  try {
    args = call.args === null || call.args === undefined ? '' : JSON.stringify(call.args)
  } catch {
    args = '…'
  }
  const text = `${call.name}(${args})`
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

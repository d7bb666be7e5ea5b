/**
 * The readable table `evalstream eval` prints: one block per invocation, one row per criterion
 * (score, threshold, status), and for trajectories which calls matched, were missing or extra.
 */
import type { CriterionResultData } from '../../engine/types.ts'

type Call = { name: string; args?: unknown }

export type CaseSummary = {
  evalId: string
  status: string
  overall: Array<{ metric_name: string; score: number | null; threshold: number; eval_status: string; reason?: string }>
}

export function formatScore(score: number | null): string {
  return score === null ? '—' : Number.isInteger(score) ? score.toFixed(1) : score.toFixed(4)
}

function formatCall(call: Call): string {
  return `${call.name}(${call.args === undefined ? '' : JSON.stringify(call.args)})`
}

function trajectoryLines(details: Record<string, unknown>): string[] {
  const lines: string[] = []
  const matched = details.matched as Array<{ expected: Call } | Call> | undefined
  const missing = details.missing as Call[] | undefined
  const extra = details.extra as Call[] | undefined
  const call = (c: { expected: Call } | Call) => formatCall('expected' in c ? c.expected : c)
  if (matched?.length) lines.push(`matched: ${matched.map(call).join(', ')}`)
  if (missing?.length) lines.push(`missing: ${missing.map(formatCall).join(', ')}`)
  if (extra?.length) lines.push(`extra:   ${extra.map(formatCall).join(', ')}`)
  return lines
}

function row(cells: string[], widths: number[]): string {
  return cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()
}

/** Renders per-invocation results, grouped by invocation, then the case summary. */
export function renderReport(results: CriterionResultData[], summary: CaseSummary): string {
  const out: string[] = [`eval case ${summary.evalId}`]
  const byInvocation = new Map<number, CriterionResultData[]>()
  for (const r of results) byInvocation.set(r.invocation_index, [...(byInvocation.get(r.invocation_index) ?? []), r])
  const widths = [34, 8, 9, 13]
  for (const [index, rows] of [...byInvocation].sort((a, b) => a[0] - b[0])) {
    out.push('', `invocation ${index + 1} (${rows[0]!.invocation_id})`)
    out.push('  ' + row(['criterion', 'score', 'threshold', 'status'], widths))
    for (const r of rows) {
      out.push('  ' + row([r.metric_name, formatScore(r.score), thresholdText(r), r.eval_status], widths))
      for (const line of trajectoryLines(r.details)) out.push('      ' + line)
      const tokens = tokenLine(r.details)
      if (tokens) out.push('      ' + tokens)
      if (r.reason) out.push('      reason: ' + r.reason)
    }
  }
  out.push('', 'overall')
  out.push('  ' + row(['criterion', 'score', 'threshold', 'status'], widths))
  for (const o of summary.overall) {
    out.push('  ' + row([o.metric_name, formatScore(o.score), thresholdText(o), o.eval_status], widths))
    if (o.reason) out.push('      reason: ' + o.reason)
  }
  out.push('', `case ${summary.evalId}: ${summary.status}`)
  return out.join('\n')
}

/** Informational metrics (ADK's efficiency metrics) have no threshold: shown as '-'. */
function thresholdText(m: { threshold: number | null; eval_status: string }): string {
  return m.eval_status === 'INFORMATIONAL' || m.threshold === null ? '-' : String(m.threshold)
}

/** token_usage_v1's breakdown on one line; n/a where the model backend did not report a count. */
function tokenLine(details: Record<string, unknown>): string | undefined {
  const t = details.token_usage_details as Record<string, number | null> | undefined
  if (!t) return undefined
  const n = (key: string) => (typeof t[key] === 'number' ? String(t[key]) : 'n/a')
  return `input ${n('input_tokens')} (prompt ${n('prompt_tokens')}, cached ${n('cached_tokens')}, tool use ${
    n('tool_use_tokens')
  }), output ${n('output_tokens')} (candidates ${n('candidates_tokens')}, reasoning ${n('reasoning_tokens')})`
}

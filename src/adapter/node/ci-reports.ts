/**
 * The two CI reports `evalstream eval` and `evalstream run` write beside their table:
 * JUnit XML (`--junit FILE`: one test case per eval case run, one failure per failed criterion
 * with what was expected and what the agent did) and a Markdown summary (`--summary FILE`, made for
 * `$GITHUB_STEP_SUMMARY`). Pure rendering over the per-invocation results the table is built from.
 */
import type { CriterionResultData } from '../../engine/types.ts'

export type ReportedCase = {
  /** The eval set id (the JUnit test suite). */
  suite: string
  /** The eval case id, with "(run k of n)" when a case ran several times. */
  name: string
  status: string
  results: CriterionResultData[]
  overall: Array<{ metric_name: string; score: number | null; threshold: number | null; eval_status: string }>
  /** Why the case was not evaluated (agent refused, timed out...). */
  reason?: string
}

type Call = { name: string; args?: unknown }

const call = (c: Call) => `${c.name}(${c.args === undefined ? '' : JSON.stringify(c.args)})`
const score = (s: number | null) => (s === null ? 'none' : String(Math.round(s * 10_000) / 10_000))

/** Expected versus actual for one failed (or not evaluated) criterion on one invocation. */
export function failureText(r: CriterionResultData): { message: string; body: string } {
  const where = `invocation ${r.invocation_index + 1} (${r.invocation_id})`
  const message = r.eval_status === 'NOT_EVALUATED'
    ? `${r.metric_name}: not evaluated: ${r.reason ?? 'no reason given'}`
    : `${r.metric_name}: score ${score(r.score)} below threshold ${r.threshold ?? 'none'}`
  const lines = [`${message}`, `at ${where}`]
  const d = r.details ?? {}
  if (Array.isArray(d.matched) || Array.isArray(d.missing) || Array.isArray(d.extra)) {
    // tool_trajectory_avg_score lists each call with its place in the expected and actual lists.
    type Listed = Call & { expected_index?: number; actual_index?: number }
    const list = (key: string) => (Array.isArray(d[key]) ? (d[key] as Listed[]) : [])
    const [matched, missing, extra] = [list('matched'), list('missing'), list('extra')]
    const inOrder = (calls: Listed[], key: 'expected_index' | 'actual_index') =>
      [...calls].sort((a, b) => (a[key] ?? 0) - (b[key] ?? 0)).map(call)
    lines.push(`expected calls: ${inOrder([...matched, ...missing], 'expected_index').join(', ') || '(none)'}`)
    lines.push(`actual calls:   ${inOrder([...matched, ...extra], 'actual_index').join(', ') || '(none)'}`)
    if (missing.length) lines.push(`missing: ${missing.map(call).join(', ')}`)
    if (extra.length) lines.push(`extra:   ${extra.map(call).join(', ')}`)
  } else if (r.eval_status !== 'NOT_EVALUATED') {
    lines.push(`expected: score >= ${r.threshold ?? 'none'}`, `actual:   score ${score(r.score)}`)
  }
  if (r.reason && r.eval_status !== 'NOT_EVALUATED') lines.push(`reason: ${r.reason}`)
  return { message, body: lines.join('\n') }
}

/** The criteria that fail a case: FAILED or NOT_EVALUATED per invocation (INFORMATIONAL never does). */
function failing(c: ReportedCase): CriterionResultData[] {
  return c.results.filter((r) => r.eval_status === 'FAILED' || r.eval_status === 'NOT_EVALUATED')
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }
/** XML 1.0 forbids most control characters even escaped: they become U+FFFD. */
function xml(text: string): string {
  let out = ''
  for (const ch of text) {
    const code = ch.codePointAt(0)!
    const forbidden = (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0xfffe || code === 0xffff
    out += forbidden ? '\ufffd' : (XML_ESCAPES[ch] ?? ch)
  }
  return out
}

/**
 * @example
 * writeFile('junit.xml', junitXml([{ suite: 'weather', name: 'paris', status: 'FAILED', results, overall }]))
 */
export function junitXml(cases: ReportedCase[]): string {
  const suites = new Map<string, ReportedCase[]>()
  for (const c of cases) suites.set(c.suite, [...(suites.get(c.suite) ?? []), c])
  const total = { tests: 0, failures: 0, errors: 0 }
  const blocks: string[] = []
  for (const [suite, list] of suites) {
    let failures = 0
    let errors = 0
    const testcases = list.map((c) => {
      const open = `    <testcase classname="${xml(suite)}" name="${xml(c.name)}">`
      const failed = failing(c)
      if (c.status === 'PASSED') return `    <testcase classname="${xml(suite)}" name="${xml(c.name)}"/>`
      if (failed.length === 0) {
        errors++
        const why = c.reason ?? `case ${c.status}`
        return `${open}\n      <error message="${xml(why)}">${xml(why)}</error>\n    </testcase>`
      }
      failures++
      const parts = failed.map((r) => {
        const f = failureText(r)
        return `      <failure message="${xml(f.message)}" type="${xml(r.eval_status)}">${xml(f.body)}</failure>`
      })
      return [open, ...parts, '    </testcase>'].join('\n')
    })
    total.tests += list.length
    total.failures += failures
    total.errors += errors
    blocks.push(
      `  <testsuite name="${xml(suite)}" tests="${list.length}" failures="${failures}" errors="${errors}">\n${
        testcases.join('\n')
      }\n  </testsuite>`,
    )
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="evalstream" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}">`,
    ...blocks,
    '</testsuites>',
    '',
  ].join('\n')
}

/** Table cells: pipes escaped, newlines flattened, so a rationale cannot break the table. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}

/**
 * @example
 * appendFile(process.env.GITHUB_STEP_SUMMARY, markdownSummary(cases))
 */
export function markdownSummary(cases: ReportedCase[]): string {
  const passed = cases.filter((c) => c.status === 'PASSED').length
  const out = [
    `## evalstream: ${passed} of ${cases.length} eval case${cases.length === 1 ? '' : 's'} passed`,
    '',
    '| eval set | case | status | criteria |',
    '|---|---|---|---|',
  ]
  for (const c of cases) {
    const criteria = c.overall
      .filter((m) => m.eval_status !== 'INFORMATIONAL')
      .map((m) =>
        `${m.metric_name} ${score(m.score)}${m.threshold === null ? '' : ` / ${m.threshold}`} ${
          m.eval_status === 'PASSED' ? '✅' : m.eval_status === 'FAILED' ? '❌' : '⚪'
        }`
      )
      .join('<br>')
    const mark = c.status === 'PASSED' ? '✅ PASSED' : c.status === 'FAILED' ? '❌ FAILED' : `⚪ ${c.status}`
    out.push(`| ${cell(c.suite)} | ${cell(c.name)} | ${mark} | ${cell(criteria || c.reason || '')} |`)
  }
  const failures = cases.flatMap((c) => failing(c).map((r) => ({ c, f: failureText(r) })))
  const unexplained = cases.filter((c) => c.status !== 'PASSED' && failing(c).length === 0)
  if (failures.length > 0 || unexplained.length > 0) {
    out.push('', '### Failures', '')
    for (const { c, f } of failures) {
      out.push(
        `<details><summary>${xml(`${c.suite} / ${c.name}: ${f.message}`)}</summary>`,
        '',
        '```',
        f.body.replace(/```/g, "'''"),
        '```',
        '</details>',
        '',
      )
    }
    for (const c of unexplained) out.push(`- ${cell(`${c.suite} / ${c.name}: ${c.status}: ${c.reason ?? 'no reason given'}`)}`)
  }
  return `${out.join('\n')}\n`
}

/**
 * Why a criterion decided as it did, drawn under it: a tool trajectory's expected-versus-actual
 * table with its first divergence marked, a judge's rationale, votes and rubric verdicts. The
 * shapes come from trajectory-rows.ts and judge-view.ts; this file only draws them (text only,
 * through dom.ts).
 */
import { h } from './dom.ts'
import type { JudgeView } from './judge-view.ts'
import { callText, type TrajectoryRow, type TrajectoryTable } from './trajectory-rows.ts'

const MARK_TEXT: Record<TrajectoryRow['mark'], string> = {
  match: '=',
  mismatch: '≠ different call',
  missing: 'missing',
  extra: 'not expected',
}

function markText(row: TrajectoryRow, matchType: string, divergence: boolean): string {
  const text = row.allowed ? `${MARK_TEXT[row.mark]} (allowed in ${matchType})` : MARK_TEXT[row.mark]
  return divergence ? `${text} ← first divergence` : text
}

const cell = (side: TrajectoryRow['expected']) =>
  side
    ? h('td', { class: 'call', title: callText(side.call, 10_000) }, `${side.index + 1}. ${callText(side.call)}`)
    : h('td', { class: 'muted' }, '—')

/** The expected and actual calls side by side; the divergence row is marked in words and colour. */
export function trajectoryElement(table: TrajectoryTable): HTMLElement {
  const rule = table.matchType === 'ANY_ORDER'
    ? 'ANY_ORDER: every expected call in any order; missing and unexpected calls marked'
    : table.matchType === 'IN_ORDER'
    ? 'IN_ORDER: the expected calls in this order, other calls allowed between'
    : 'EXACT: the same calls in the same order, nothing else'
  return h(
    'div',
    { class: 'explain trajectory', 'data-match-type': table.matchType },
    h('div', { class: 'muted' }, rule),
    h(
      'table',
      null,
      h('thead', null, h('tr', null, h('th', null, 'expected'), h('th', null, 'actual'), h('th', null, ''))),
      h(
        'tbody',
        null,
        table.rows.map((row, i) =>
          h(
            'tr',
            {
              'data-mark': row.mark,
              'data-allowed': row.allowed ? 'true' : undefined,
              'data-divergence': i === table.divergence ? 'true' : undefined,
            },
            cell(row.expected),
            cell(row.actual),
            h('td', { class: 'mark' }, markText(row, table.matchType, i === table.divergence)),
          )
        ),
      ),
    ),
    table.rows.length === 0 ? h('div', { class: 'muted' }, 'no calls expected and none made') : null,
    table.cut.length ? h('div', { class: 'muted' }, `lists cut at 100 calls: ${table.cut.join(', ')}`) : null,
  )
}

/** The judge's rationale, each sample's vote (with its own reasoning when kept) and rubric verdicts. */
export function judgeElement(view: JudgeView): HTMLElement {
  const tally = new Map<string, number>()
  for (const v of view.votes) tally.set(v.label, (tally.get(v.label) ?? 0) + 1)
  return h(
    'div',
    { class: 'explain judge' },
    view.rationale !== undefined ? h('div', { class: 'rationale' }, h('span', { class: 'muted' }, 'judge: '), view.rationale) : null,
    view.votes.length
      ? h(
        'div',
        { class: 'votes' },
        h('div', { class: 'muted' }, `votes: ${[...tally].map(([label, n]) => `${n} ${label}`).join(', ')}`),
        h(
          'ol',
          null,
          view.votes.map((v) =>
            h(
              'li',
              { 'data-vote': v.label, 'data-chosen': v.chosen ? 'true' : undefined },
              h('span', { class: 'vote' }, v.label),
              v.chosen ? h('span', { class: 'muted' }, ' (the vote kept this sample)') : null,
              v.reasoning !== undefined ? h('span', null, `: ${v.reasoning}`) : null,
            )
          ),
        ),
      )
      : null,
    view.rubrics.length
      ? h(
        'ul',
        { class: 'rubrics' },
        view.rubrics.map((r) =>
          h(
            'li',
            { 'data-verdict': r.verdict },
            h('span', { class: 'vote' }, `${r.id}: ${r.verdict}`),
            r.rationale !== undefined ? h('span', null, ` — ${r.rationale}`) : null,
          )
        ),
      )
      : null,
    view.notes.map((n) => h('div', { class: 'why' }, n)),
  )
}

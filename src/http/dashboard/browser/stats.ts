/**
 * Per criterion across sessions (GET /v1/stats): pass rate, counts, the score distribution and the
 * pass rate over time, as plain bars (heights set through CSSOM, which the page's CSP allows; no
 * inline styles in markup).
 */
import { getJson } from './api.ts'
import { rateHeight, relativeHeights } from './bar-heights.ts'
import { formatScore, h, replace } from './dom.ts'
import type { AppScorable, CriterionStats, Stats, TimeBucket } from './wire.ts'

export type StatsFilters = { app: string; windowMs: number }

function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '–' : `${Math.round(rate * 100)}%`
}

/** `heights` in percent of the chart (bar-heights.ts decides the scale); `empty` marks buckets with no results. */
function bars(kind: string, heights: number[], titles: string[], bad?: boolean[], empty?: boolean[]): HTMLElement {
  return h(
    'div',
    { class: `bars ${kind}` },
    heights.map((height, i) => {
      const bar = h('span', {
        title: titles[i],
        'data-bad': bad ? String(bad[i]) : undefined,
        'data-empty': empty?.[i] ? 'true' : undefined,
      })
      bar.style.height = `${height}%`
      return bar
    }),
  )
}

/** Every time bucket of the window, empty ones too, so the bars line up with the clock. */
function timeline(c: CriterionStats, stats: Stats): TimeBucket[] {
  const since = Date.parse(stats.since)
  const count = Math.ceil((Date.parse(stats.until) - since) / stats.bucket_ms)
  const byStart = new Map(c.over_time.map((t) => [t.start_ms, t]))
  return Array.from(
    { length: count },
    (_, i) => byStart.get(since + i * stats.bucket_ms) || { start_ms: since + i * stats.bucket_ms, total: 0, pass_rate: null },
  )
}

function card(c: CriterionStats, stats: Stats): HTMLElement {
  const time = timeline(c, stats)
  // ADK's efficiency metrics (tokens, calls, seconds) are values without a threshold: their mean, not a pass rate.
  const informational = c.counts.INFORMATIONAL === c.total
  const axis = h(
    'div',
    { class: 'axis' },
    h('span', null, time[0] ? new Date(time[0].start_ms).toLocaleString() : ''),
    h('span', null, 'now'),
  )
  const when = (t: TimeBucket) => `${new Date(t.start_ms).toLocaleString()}: `
  if (informational) {
    return h(
      'div',
      { class: 'card', 'data-criterion': c.criterion },
      h('h3', null, c.criterion),
      h('div', { class: 'rate' }, formatScore(c.mean_score), h('span', { class: 'muted' }, ' mean value')),
      h('div', null, `${c.total} values (informational: no threshold)`),
      h('div', { class: 'muted' }, 'mean over time'),
      bars(
        'values',
        relativeHeights(time.map((t) => t.mean_score || 0)),
        time.map((t) => `${when(t) + formatScore(t.mean_score)} over ${t.total}`),
      ),
      axis,
    )
  }
  return h(
    'div',
    { class: 'card', 'data-criterion': c.criterion },
    h('h3', null, c.criterion),
    h('div', { class: 'rate' }, percent(c.pass_rate), h('span', { class: 'muted' }, ' pass rate')),
    h('div', null, `${c.counts.PASSED} passed · ${c.counts.FAILED} failed · ${c.counts.NOT_EVALUATED} not evaluated`),
    h('div', { class: 'muted' }, 'score distribution'),
    bars(
      'scores',
      relativeHeights(c.score_buckets.map((b) => b.count)),
      c.score_buckets.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${b.count}`),
    ),
    h('div', { class: 'axis' }, h('span', null, '0'), h('span', null, '1')),
    h('div', { class: 'muted' }, 'pass rate over time (axis 0–100%)'),
    h(
      'div',
      { class: 'rate-chart' },
      h('div', { class: 'y-axis' }, h('span', null, '100%'), h('span', null, '50%'), h('span', null, '0%')),
      bars(
        'time',
        time.map((t) => rateHeight(t.pass_rate)),
        time.map((t) => `${when(t) + percent(t.pass_rate)} of ${t.total}`),
        time.map((t) => t.pass_rate !== null && t.pass_rate < 0.5),
        time.map((t) => t.pass_rate === null),
      ),
      h('span', null),
      axis,
    ),
  )
}

/** Fetches the stats for the filters and draws one card per criterion into `el`. */
/** One card: per app, the share of its results that could be scored, with the main reason for the rest. */
function scorableCard(apps: AppScorable[]): HTMLElement {
  return h(
    'div',
    { class: 'card scorable' },
    h('h3', null, 'scorable per app'),
    apps.map((a) =>
      h(
        'div',
        { title: a.not_evaluated_reasons.map((r) => `${r.count}x ${r.reason}`).join('\n') || undefined },
        h('span', { class: 'rate' }, percent(a.scorable_share)),
        ` ${a.app || '(no app)'} · ${a.scored} of ${a.decided} scored`,
        a.not_evaluated_reasons[0] ? h('div', { class: 'why' }, a.not_evaluated_reasons[0].reason) : null,
      )
    ),
  )
}

export async function loadStats(el: HTMLElement, filters: StatsFilters): Promise<Stats> {
  const since = Date.now() - filters.windowMs
  const stats = await getJson<Stats>('/v1/stats', { app: filters.app, since })
  const decided = stats.criteria.filter((c) => c.counts.INFORMATIONAL < c.total)
  const values = stats.criteria.filter((c) => c.counts.INFORMATIONAL === c.total)
  replace(
    el,
    stats.criteria.length
      ? [
        // Shown only when something could not be scored: then it says for which app and why.
        (stats.apps ?? []).some((a) => a.scored < a.decided) ? scorableCard(stats.apps ?? []) : null,
        ...[...decided, ...values].map((c) => card(c, stats)),
      ]
      : h('p', { class: 'muted' }, 'no results in this window'),
  )
  return stats
}

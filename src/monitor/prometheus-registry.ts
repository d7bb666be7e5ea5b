/**
 * A small Prometheus registry: counters, gauges read at scrape time, histograms, rendered in the
 * text exposition format 0.0.4. Small on purpose (no client library): it runs on Node, Deno and
 * inside a Worker bundle, and holds only what evalstream counts.
 *
 * Label values are bounded by whoever records them (criterion names from the catalogue, reason
 * codes, route patterns); as a second guard each metric keeps at most MAX_SERIES_PER_METRIC label
 * sets and folds any further one into `other`, so no input can grow the registry without bound.
 */

/** Label sets one metric keeps at most; a new one past this is recorded under label value `other`. */
export const MAX_SERIES_PER_METRIC = 1_000

/** The exposition format's content type (Prometheus text format 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export type Labels = Record<string, string>

type Family = { name: string; help: string; type: 'counter' | 'gauge' | 'histogram'; render(): string[] }

export type Counter = { inc(labels?: Labels, by?: number): void; get(labels?: Labels): number }
export type Histogram = { observe(value: number, labels?: Labels): void }
export type Registry = {
  counter(name: string, help: string, labelNames?: readonly string[]): Counter
  /**
   * A metric whose samples are read when scraped (`read` returns one value per label set): a gauge,
   * or a counter another part keeps (e.g. the session store's evictions).
   */
  sampled(name: string, help: string, type: 'gauge' | 'counter', read: () => Array<{ labels?: Labels; value: number }>): void
  histogram(name: string, help: string, buckets: readonly number[], labelNames?: readonly string[]): Histogram
  /** The whole registry as exposition text, one family after another, ending with a newline. */
  render(): string
}

/**
 * @example
 * const registry = createRegistry()
 * const events = registry.counter('evalstream_events_total', 'Events.', ['source'])
 * events.inc({ source: 'upload' }); registry.render() // '# HELP evalstream_events_total Events.\n...'
 */
export function createRegistry(): Registry {
  const families: Family[] = []
  const add = (family: Family) => {
    if (families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} is registered twice`)
    families.push(family)
  }
  return {
    counter(name, help, labelNames = []) {
      const series = boundedSeries<number>(labelNames)
      add({ name, help, type: 'counter', render: () => [...series.entries()].map(([key, v]) => `${name}${key} ${formatValue(v)}`) })
      return {
        // A counter only goes up, by a number: anything else is ignored, never added as text or subtracted.
        inc: (labels = {}, by = 1) => {
          if (typeof by === 'number' && Number.isFinite(by) && by >= 0) series.update(labels, (v = 0) => v + by)
        },
        get: (labels = {}) => series.peek(labels) ?? 0,
      }
    },
    sampled(name, help, type, read) {
      add({ name, help, type, render: () => read().map((s) => `${name}${labelText(s.labels ?? {})} ${formatValue(s.value)}`) })
    },
    histogram(name, help, buckets, labelNames = []) {
      const bounds = [...buckets].sort((a, b) => a - b)
      type H = { counts: number[]; sum: number; count: number }
      const series = boundedSeries<H>(labelNames)
      add({
        name,
        help,
        type: 'histogram',
        render: () =>
          [...series.entries()].flatMap(([key, h]) => {
            const base = key === '' ? '' : key.slice(1, -1) + ','
            const lines = bounds.map((b, i) => `${name}_bucket{${base}le="${formatValue(b)}"} ${h.counts[i]}`)
            lines.push(
              `${name}_bucket{${base}le="+Inf"} ${h.count}`,
              `${name}_sum${key} ${formatValue(h.sum)}`,
              `${name}_count${key} ${h.count}`,
            )
            return lines
          }),
      })
      return {
        observe: (value, labels = {}) =>
          series.update(labels, (h = { counts: bounds.map(() => 0), sum: 0, count: 0 }) => {
            // Cumulative buckets: a value counts in every bucket whose bound it does not exceed.
            bounds.forEach((b, i) => {
              if (value <= b) h.counts[i]! += 1
            })
            h.sum += value
            h.count += 1
            return h
          }),
      }
    },
    render() {
      const out: string[] = []
      for (const f of families) {
        out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`, ...f.render())
      }
      return out.join('\n') + '\n'
    },
  }
}

/** Values by label set (keyed by their rendered `{a="x"}` text), at most MAX_SERIES_PER_METRIC of them. */
function boundedSeries<V>(labelNames: readonly string[]) {
  const values = new Map<string, V>()
  // Counters are bumped per event and per result: the rendered key of a label set is built once
  // and found again by its plain values, one map per label (the last one's values lead to the
  // key), so a bump allocates nothing. Bounded like the series themselves: past the cap, a new
  // label set's key is built each time and not kept.
  const rendered = new Map<string, unknown>()
  let renderedCount = 0
  const renderedKey = (labels: Labels): string => {
    const last = labelNames.length - 1
    if (last < 0) return ''
    let level = rendered
    for (let i = 0; i < last; i++) {
      const value = labels[labelNames[i]!] ?? ''
      let next = level.get(value) as Map<string, unknown> | undefined
      if (next === undefined) {
        if (renderedCount >= MAX_SERIES_PER_METRIC) return labelText(pick(labelNames, labels))
        level.set(value, next = new Map())
      }
      level = next
    }
    const value = labels[labelNames[last]!] ?? ''
    let key = level.get(value) as string | undefined
    if (key === undefined) {
      key = labelText(pick(labelNames, labels))
      if (renderedCount < MAX_SERIES_PER_METRIC) {
        level.set(value, key)
        renderedCount += 1
      }
    }
    return key
  }
  const keyOf = (labels: Labels): string => {
    const key = renderedKey(labels)
    if (values.has(key) || values.size < MAX_SERIES_PER_METRIC) return key
    return labelText(Object.fromEntries(labelNames.map((n) => [n, 'other'])))
  }
  return {
    update(labels: Labels, next: (old: V | undefined) => V) {
      const key = keyOf(labels)
      values.set(key, next(values.get(key)))
    },
    peek: (labels: Labels) => values.get(renderedKey(labels)),
    entries: () => values.entries(),
  }
}

/** Only the declared labels, in declared order, each present (an absent one is ''). */
function pick(labelNames: readonly string[], labels: Labels): Labels {
  return Object.fromEntries(labelNames.map((n) => [n, labels[n] ?? '']))
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`)
  return parts.length === 0 ? '' : `{${parts.join(',')}}`
}

/** The format's escapes: backslash, double quote and newline in label values. */
function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')
}

function formatValue(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Infinity) return '+Inf'
  if (n === -Infinity) return '-Inf'
  return String(n)
}

/**
 * A strict reader of the Prometheus text format 0.0.4 for tests: every line must be a HELP, a TYPE
 * or a sample of a family whose TYPE came first; histograms must have cumulative buckets ending in
 * `+Inf` equal to `_count`. Throws, naming the line, on anything else.
 */
export type Sample = { name: string; labels: Record<string, string>; value: number }
export type Exposition = { types: Map<string, string>; samples: Sample[]; value(name: string, labels?: Record<string, string>): number }

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline')
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
    const where = `line ${i + 1}: ${line}`
    if (line.startsWith('# HELP ')) continue
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ')
      if (!name || !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type ?? '')) throw new Error(where)
      if (types.has(name)) throw new Error(`${where}: TYPE given twice`)
      types.set(name, type!)
      continue
    }
    const m = SAMPLE.exec(line)
    if (!m) throw new Error(`${where}: not a sample`)
    const name = m[1]!
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '')
    if (!types.has(family)) throw new Error(`${where}: no TYPE before it`)
    const value = m[3] === '+Inf' ? Infinity : Number(m[3])
    if (Number.isNaN(value) && m[3] !== 'NaN') throw new Error(`${where}: bad value`)
    samples.push({ name, labels: parseLabels(m[2] ?? '', where), value })
  }
  checkHistograms(types, samples)
  const value = (name: string, labels: Record<string, string> = {}) => {
    const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`)
    return found[0]?.value ?? 0
  }
  return { types, samples, value }
}

function parseLabels(text: string, where: string): Record<string, string> {
  if (text === '') return {}
  const inner = text.slice(1, -1)
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < inner.length) {
    const m = LABEL.exec(inner)
    if (!m) throw new Error(`${where}: bad labels`)
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
  }
  return labels
}

function checkHistograms(types: Map<string, string>, samples: Sample[]): void {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue
    const series = new Map<string, Sample[]>()
    for (const s of samples.filter((x) => x.name === `${family}_bucket`)) {
      const { le: _le, ...rest } = s.labels
      const key = JSON.stringify(rest)
      series.set(key, [...(series.get(key) ?? []), s])
    }
    for (const [key, buckets] of series) {
      const counts = buckets.map((b) => b.value)
      if (counts.some((c, i) => i > 0 && c < counts[i - 1]!)) throw new Error(`${family}${key}: buckets are not cumulative`)
      if (buckets.at(-1)?.labels.le !== '+Inf') throw new Error(`${family}${key}: no +Inf bucket last`)
      const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key)
      if (count?.value !== counts.at(-1)) throw new Error(`${family}${key}: _count differs from the +Inf bucket`)
    }
  }
}

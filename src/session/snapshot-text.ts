/**
 * An ended session's snapshot as JSON text, its results written from the criterion results' stored
 * data texts: each one's score, status, details and reason are cut out of the text as stored and
 * put together, where parsing every result (a few hundred per session) into objects only to
 * stringify them again was most of the snapshot's cost. The text is byte for byte what
 * `JSON.stringify` writes of the snapshot with its results read back as objects (`loggedScore`):
 * stored texts were written by `JSON.stringify` (resultDataJson), so a value cut out of one is
 * what stringifying its parse would write.
 */
import type { SessionSnapshot } from '../engine/types.ts'
import type { CriterionResultData } from '../engine/types.ts'
import { loggedScore } from '../engine/verdicts.ts'

type Snapshot = Omit<SessionSnapshot, 'case_result'>

const MISSING = JSON.stringify(loggedScore(undefined))
/** Names an object puts first whatever their place (array indices): a results object would not keep the metrics' order. */
const INDEX_LIKE = /^(0|[1-9][0-9]*)$/

/**
 * The snapshot with `tail`'s members after its own, as `JSON.stringify({ ...snapshot, ...tail })`
 * writes it with each invocation's `results` read back: metric `i` of invocation `n` is the result
 * logged under `seqs[n * metrics + i]` (-1: none yet, null), whose stored text `texts` has (none:
 * no longer in the log). Undefined when a metric name would not keep its place in an object.
 * @example snapshotText(kept, seqs, log.dataTextsAt(wanted, 'criterion.result'), { last_seq: 9 })
 */
export function snapshotText(
  snapshot: Snapshot,
  seqs: Int32Array,
  texts: ReadonlyMap<number, string>,
  tail: Record<string, unknown>,
): string | undefined {
  const { metrics } = snapshot
  if (new Set(metrics).size !== metrics.length || metrics.some((m) => INDEX_LIKE.test(m))) return undefined
  const names = metrics.map((m) => `${JSON.stringify(m)}:`)
  const results = (n: number): string => {
    let out = '{'
    for (let i = 0; i < names.length; i++) {
      const seq = seqs[n * names.length + i]!
      out += `${i > 0 ? ',' : ''}${names[i]}${seq < 0 ? 'null' : scoreText(texts.get(seq))}`
    }
    return `${out}}`
  }
  const invocations = (): string => {
    let out = ''
    for (let n = 0; n < snapshot.invocations.length; n++) {
      const invocation = snapshot.invocations[n] as Record<string, unknown>
      const kept = JSON.stringify(invocation)
      // The kept entry's results are empty and last (as the engine writes it): its text ends with them.
      const entry = kept.endsWith(EMPTY_RESULTS_LAST)
        ? `${kept.slice(0, -3)}${results(n)}}`
        : objectText(invocation, (key) => (key === 'results' ? results(n) : undefined))
      out += `${n > 0 ? ',' : ''}${entry}`
    }
    return `[${out}]`
  }
  return objectText({ ...snapshot, ...tail }, (key) => (key === 'invocations' ? invocations() : undefined))
}

/**
 * How a JSON.stringify text of an object whose last member is `results: {}` ends (a value that
 * merely ends the same way cannot: a string's quotes are escaped, a nested object adds its brace).
 */
const EMPTY_RESULTS_LAST = ',"results":{}}'

/** `JSON.stringify(object)` of plain data, the member `special` names written as it says. */
function objectText(object: Record<string, unknown>, special: (key: string) => string | undefined): string {
  let out = ''
  for (const key of Object.keys(object)) {
    const text = special(key) ?? (JSON.stringify(object[key]) as string | undefined)
    if (text === undefined) continue
    out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${text}`
  }
  return `{${out}}`
}

/** The logged data's members a score is made of, in the order `loggedScore` writes them. */
const FROM = ['score', 'eval_status', 'details', 'reason'] as const
/** What `loggedScore` names each of them. */
const AS = ['"score":', '"status":', '"details":', '"reason":']

/** `JSON.stringify(loggedScore(JSON.parse(text)))`, cut out of the text where it is as JSON.stringify writes. */
function scoreText(text: string | undefined): string {
  if (text === undefined) return MISSING
  const at = memberRanges(text, FROM)
  if (!at) return JSON.stringify(loggedScore(JSON.parse(text) as CriterionResultData))
  let out = ''
  for (let i = 0; i < FROM.length; i++) {
    if (at[2 * i]! >= 0) out += `${out === '' ? '' : ','}${AS[i]}${text.slice(at[2 * i], at[2 * i + 1])}`
  }
  return `{${out}}`
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

/**
 * Where the values of the top-level members `names` are in an object text as JSON.stringify
 * writes it (no whitespace): [start, end) of names[i] at 2i and 2i + 1, -1 for a member it does
 * not have (the last of one written twice, as JSON.parse keeps). Undefined for any other text
 * (the caller parses it).
 * @example memberRanges('{"a":1,"b":[2]}', ['b']) // Int32Array [11, 14]
 */
export function memberRanges(text: string, names: readonly string[]): Int32Array | undefined {
  const found = new Int32Array(2 * names.length).fill(-1)
  if (text.charCodeAt(0) !== OPEN_OBJECT) return undefined
  if (text.length === 2 && text.charCodeAt(1) === CLOSE_OBJECT) return found
  for (let at = 1;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined
    const nameEnd = stringEnd(text, at)
    if (nameEnd < 0 || text.charCodeAt(nameEnd) !== COLON) return undefined
    const end = valueEnd(text, nameEnd + 1)
    if (end < 0) return undefined
    const length = nameEnd - at - 2
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!
      if (name.length === length && text.startsWith(name, at + 1)) {
        found[2 * i] = nameEnd + 1
        found[2 * i + 1] = end
      }
    }
    const next = text.charCodeAt(end)
    if (next === COMMA) at = end + 1
    else return next === CLOSE_OBJECT && end === text.length - 1 ? found : undefined
  }
}
/** The index after the string opening at `quote` (-1: it does not close). */
function stringEnd(text: string, quote: number): number {
  for (let from = quote + 1;;) {
    const close = text.indexOf('"', from)
    if (close < 0) return -1
    let escapes = 0
    while (text.charCodeAt(close - 1 - escapes) === BACKSLASH) escapes++
    if (escapes % 2 === 0) return close + 1
    from = close + 1
  }
}

/** The index after the value starting at `start` (-1: it does not end). */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start)
  if (first === QUOTE) return stringEnd(text, start)
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or a literal runs to the next delimiter.
    let at = start
    for (let c = first; at < text.length && c !== COMMA && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY; c = text.charCodeAt(++at));
    return at > start ? at : -1
  }
  let depth = 0
  for (let at = start; at < text.length;) {
    const c = text.charCodeAt(at)
    if (c === QUOTE) {
      at = stringEnd(text, at)
      if (at < 0) return -1
      continue
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return at + 1
    at++
  }
  return -1
}

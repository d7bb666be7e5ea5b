/**
 * What an ended session answers from once its engine is gone (ended-engine.ts): its final snapshot,
 * and its case result read back from its result log (the case.result event) when asked. Holding
 * the typed case result instead cost about 120 KiB per 50 invocations (each actual invocation
 * keeps its events), and the log keeps it anyway: in its SQLite rows, or in memory.
 *
 * The snapshot's results are read back the same way when the engine gave the seq of each
 * (`SessionEngine.resultSeqs`): the session keeps the invocations' ids and one number per result.
 */
import type { CriterionResultData, SessionSnapshot } from '../engine/types.ts'
import { scoresAt } from '../engine/verdicts.ts'
import type { ResultLog } from './result-log.ts'
import { cachedResultDataBytes } from './result-json.ts'
import { snapshotText } from './snapshot-text.ts'

type Snapshot = Omit<SessionSnapshot, 'case_result'>
type InvocationEntry = Snapshot['invocations'][number]

const utf8 = new TextEncoder()
/** The snapshot's case result when the log has none; shared, never written to. */
const NULL = utf8.encode('null')
const CLOSING_BRACE = 0x7d

export class EndedAnswers {
  /** With `#seqs`, its invocations have empty `results`: they are read back. */
  #snapshot: Snapshot
  #seqs: Int32Array | undefined
  #caseResultSeq: number
  #log: ResultLog
  /**
   * The logged case result's data, for as long as something else holds it: the `/end` answer and
   * the streams that follow right after the end write its text from the JSON text cache
   * (result-json.ts) instead of reading ~200 KB back from the log's rows. Weak: the ended session
   * itself keeps nothing of it.
   */
  #recent: WeakRef<Record<string, unknown>> | undefined
  /**
   * The snapshot with the results the end read, for as long as nothing collected it: the snapshot
   * a client asks for right after the end is written from it instead of reading every result back
   * again. Weak, and dropped once used: the ended session keeps nothing of it.
   */
  #withEndResults: WeakRef<Snapshot> | undefined

  /**
   * With `seqs` (`SessionEngine.resultSeqs`), the snapshot is without its results (they are read
   * back); `recent.snapshot` is the same snapshot with them, while it lives.
   */
  constructor(
    snapshot: Snapshot,
    caseResultSeq: number,
    log: ResultLog,
    seqs?: Int32Array,
    recent?: { data?: WeakRef<Record<string, unknown>>; snapshot?: WeakRef<Snapshot> },
  ) {
    this.#seqs = seqs
    this.#snapshot = snapshot
    this.#caseResultSeq = caseResultSeq
    this.#log = log
    this.#recent = recent?.data
    this.#withEndResults = recent?.snapshot
  }

  /**
   * Resolves once the log's rows can be read without waiting for a writer: on Node, a read of rows
   * still queued for the writer thread holds the event loop until it commits everything queued.
   */
  settle(): Promise<void> {
    return this.#log.settle()
  }

  /** The case result, in ADK's file shape, as the log keeps it. */
  caseResult(): Record<string, unknown> | undefined {
    return this.#recent?.deref() ?? this.#log.eventAt(this.#caseResultSeq)?.data
  }

  /**
   * The case result's UTF-8 bytes: made once (result-json.ts) for its stream frames and the `/end`
   * answer while the caches keep it, else its row's bytes as stored.
   */
  caseResultBytes(): Uint8Array<ArrayBuffer> | undefined {
    return this.cachedCaseResultBytes() ?? this.#log.dataBytes(this.#caseResultSeq)
  }

  /** The case result's bytes while the caches still keep them or its text (no read of the log). */
  cachedCaseResultBytes(): Uint8Array<ArrayBuffer> | undefined {
    const recent = this.#recent?.deref()
    return recent && cachedResultDataBytes(recent)
  }

  /** The snapshot, with the log's counters as they are now. */
  snapshot(): Record<string, unknown> {
    return { ...this.#withResults(), case_result: this.caseResult() ?? null, ...this.#counters() }
  }

  /**
   * The snapshot as JSON text in UTF-8, the case result put in as stored: the head encoded, the
   * case result's bytes copied in as made once (`caseResultBytes`), and no ~200 KB string spliced
   * first. When 200 sessions end together, the caches have let most of their case results go by
   * the time their snapshots are asked for: then the row's bytes are read as stored.
   */
  snapshotBytes(): Uint8Array<ArrayBuffer> {
    const head = utf8.encode(this.#snapshotHead())
    const caseResult = this.caseResultBytes() ?? NULL
    const bytes = new Uint8Array(head.byteLength + caseResult.byteLength + 1)
    bytes.set(head)
    bytes.set(caseResult, head.byteLength)
    bytes[bytes.byteLength - 1] = CLOSING_BRACE
    return bytes
  }

  /** The snapshot's text without its case result and closing brace: `{...,"case_result":`. */
  #snapshotHead(): string {
    const seqs = this.#seqs
    const counters = this.#counters()
    const withEndResults = this.#withEndResults?.deref()
    this.#withEndResults = undefined
    const rest = (withEndResults && JSON.stringify({ ...withEndResults, ...counters })) ??
      (seqs && snapshotText(this.#snapshot, seqs, this.#log.dataTextsAt(logged(seqs), 'criterion.result'), counters)) ??
      JSON.stringify({ ...this.#withResults(), ...counters })
    return `${rest.slice(0, -1)},"case_result":`
  }

  /** The kept snapshot with each invocation's results, read back from the log when they were not kept. */
  #withResults(): Snapshot {
    const seqs = this.#seqs
    if (!seqs) return this.#snapshot
    const { metrics } = this.#snapshot
    const scores = scoresAt(seqs, (wanted) => loggedCriterionResults(this.#log, wanted))
    const invocations = this.#snapshot.invocations.map((inv, n): InvocationEntry => ({
      ...inv,
      results: Object.fromEntries(metrics.map((metric, i) => [metric, scores[n * metrics.length + i] ?? null])),
    }))
    return { ...this.#snapshot, invocations }
  }

  #counters() {
    return { last_seq: this.#log.lastSeq(), subscribers: this.#log.subscriberCount() }
  }
}

/** The seqs of results logged (-1: none yet). */
function logged(seqs: Int32Array): number[] {
  const out: number[] = []
  for (const seq of seqs) if (seq >= 0) out.push(seq)
  return out
}

/** A session's logged criterion results by seq, as their data: the engine's `loggedResults`. */
export function loggedCriterionResults(log: ResultLog, seqs: readonly number[]): Map<number, CriterionResultData> {
  const found = new Map<number, CriterionResultData>()
  for (const [seq, event] of log.eventsAt(seqs, 'criterion.result')) found.set(seq, event.data as CriterionResultData)
  return found
}

/**
 * What an ended session answers from once its engine is gone (ended-engine.ts): the final snapshot
 * it kept, and its case result read back from its result log (the case.result event) when asked.
 * Holding the typed case result instead cost about 120 KiB per 50 invocations (each actual
 * invocation keeps its events), and the log keeps it anyway: in its SQLite rows, or in memory.
 */
import type { SessionSnapshot } from '../engine/types.ts'
import type { ResultLog } from './result-log.ts'

export class EndedAnswers {
  #snapshot: Omit<SessionSnapshot, 'case_result'>
  #caseResultSeq: number
  #log: ResultLog

  constructor(snapshot: Omit<SessionSnapshot, 'case_result'>, caseResultSeq: number, log: ResultLog) {
    this.#snapshot = snapshot
    this.#caseResultSeq = caseResultSeq
    this.#log = log
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
    return this.#log.eventAt(this.#caseResultSeq)?.data
  }

  /** The case result's stored text: no parse and stringify of what is ~200 KB for 50 invocations. */
  caseResultJson(): string | undefined {
    return this.#log.dataText(this.#caseResultSeq)
  }

  /** The snapshot, with the log's counters as they are now. */
  snapshot(): Record<string, unknown> {
    return { ...this.#snapshot, case_result: this.caseResult() ?? null, ...this.#counters() }
  }

  /** The snapshot as JSON text, the case result put in as stored. */
  snapshotJson(): string {
    const rest = JSON.stringify({ ...this.#snapshot, ...this.#counters() })
    return `${rest.slice(0, -1)},"case_result":${this.caseResultJson() ?? 'null'}}`
  }

  #counters() {
    return { last_seq: this.#log.lastSeq(), subscribers: this.#log.subscriberCount() }
  }
}

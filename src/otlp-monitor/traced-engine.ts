/**
 * The engine decorator of the sessions the OTLP monitor opens: it reads the trace mark
 * (src/otlp/trace-mark.ts) a marked event carries and gives the engine the trace's clock and the
 * metrics the trace rules out, and records where each invocation's results go back to.
 */
import type { EvalCaseResult } from '../adk/results.ts'
import type { EngineOptions, IngestedEvent, RejectedEvent, SessionEngine, SessionSnapshot } from '../engine/types.ts'
import type { EngineFactory } from '../session/session.ts'
import { isOtlpSessionId } from '../otlp/session-id.ts'
import { type TraceLinks, traceMarkOf } from '../otlp/trace-mark.ts'

/**
 * Engines that read trace marks: a marked event sets the engine's clock to the trace's start (and
 * its later events and completion to the trace's end), answers `unscorable` from the mark, and
 * records the links. Events without a mark (every other session) pass through untouched.
 * @example createEngine = tracedEngines(judgedEngines(judging), links)
 */
export function tracedEngines(inner: EngineFactory, links?: TraceLinks): EngineFactory {
  return (options) => {
    // Marks mean something only in the sessions the OTLP monitor opens.
    if (!isOtlpSessionId(options.spec.session_id)) return inner(options)
    const traced = new TracedEngine(options, links)
    const created = inner({
      ...options,
      clock: () => traced.clock(),
      unscorable: (id) => traced.unscorable(id),
    })
    if (!created.ok) return created
    traced.inner = created.engine
    return { ...created, engine: traced }
  }
}

/**
 * A class, not an object of closures: every OTLP-born session's engine is wrapped, and the
 * wrapper's methods are shared by all of them.
 */
class TracedEngine implements SessionEngine {
  /** Set right after the inner engine is made with this wrapper's clock. */
  inner!: SessionEngine
  #options: EngineOptions
  #links: TraceLinks | undefined
  #traceTime: number | undefined
  #traceEnd: number | undefined
  #traceId: string | undefined
  #traceStart: number | undefined
  // Made with the first mark: most sessions have none.
  #ruledOut: Map<string, ReadonlyMap<string, string>> | undefined

  constructor(options: EngineOptions, links: TraceLinks | undefined) {
    this.#options = options
    this.#links = links
  }

  clock(): number {
    return this.#traceTime ?? this.#options.clock?.() ?? Number.NaN
  }

  unscorable(id: string): ReadonlyMap<string, string> | undefined {
    return this.#ruledOut?.get(id) ?? this.#options.unscorable?.(id)
  }

  push(item: IngestedEvent): void {
    const mark = traceMarkOf(item.event)
    if (mark) {
      const invocationId = item.event.invocation_id ?? ''
      // A second mark of the same trace (on the piece that completes it) brings its end, not a new
      // start: the engine timed the invocation from the first piece's start (before the root span
      // arrived, the earliest span's), so the end keeps the root's duration from there.
      const again = mark.trace_id === this.#traceId && this.#traceStart !== undefined
      this.#traceId = mark.trace_id
      if (!again) this.#traceStart = mark.start_ms
      this.#traceEnd = this.#traceStart! + ((mark.end_ms ?? Number.NaN) - mark.start_ms)
      this.#traceTime = again ? this.#traceEnd : mark.start_ms
      ;(this.#ruledOut ??= new Map()).set(invocationId, new Map(Object.entries(mark.unscorable)))
      this.#links?.record(this.#options.spec.session_id, invocationId, mark)
    } else if (this.#traceTime !== undefined) this.#traceTime = this.#traceEnd
    this.inner.push(item)
  }

  reject(rejected: RejectedEvent): void {
    this.inner.reject(rejected)
  }

  completeInvocation(): void {
    if (this.#traceTime !== undefined) this.#traceTime = this.#traceEnd
    this.inner.completeInvocation()
  }

  end(): Promise<EvalCaseResult> {
    return this.inner.end()
  }

  snapshot(withResults?: boolean): SessionSnapshot {
    return this.inner.snapshot(withResults)
  }

  abort(reason?: string): void {
    this.inner.abort(reason)
  }

  judgesSettled(): Promise<void> {
    return this.inner.judgesSettled?.() ?? Promise.resolve()
  }

  resultSeqs(): Int32Array | undefined {
    return this.inner.resultSeqs?.()
  }
}

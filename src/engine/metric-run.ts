/**
 * One metric on one invocation: feeds the criterion the invocation's events, reports early verdicts
 * once, and settles the final score, running judge rounds when the criterion asks for them.
 * Criterion code is user-facing logic that must never take the session down: anything it throws
 * becomes NOT_EVALUATED with the error as the reason, as ADK does (spec §1.5 step 3).
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Invocation } from '../adk/invocation.ts'
import type {
  AnyCriterion,
  InvocationContext,
  InvocationScore,
  InvocationTiming,
  JudgeAnswer,
  JudgeRequest,
  Outcome,
  Provisional,
} from '../core/criterion.ts'

/** Runs a batch of judge requests; the host wires this to the judge executor. */
export type JudgeRunner = (requests: JudgeRequest[], signal: AbortSignal) => Promise<JudgeAnswer[]>

export const NO_JUDGE_REASON =
  'no judge configured: set GEMINI_API_KEY (or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI), or a provider for judge_model provider/model names (OPENAI_API_KEY, EVALSTREAM_JUDGE_<NAME>_BASE_URL, ...: docs/judges.md)'

export class MetricRun {
  #criterion: AnyCriterion
  #context: InvocationContext<{ threshold: number | null }>
  #state: unknown
  #failed?: string
  #lastProgress?: string
  #progressFinal = false
  /** The criterion's state was dropped (`release`): `restore` rebuilds it before the next event. */
  #released = false

  constructor(criterion: AnyCriterion, context: InvocationContext<{ threshold: number | null }>) {
    this.#criterion = criterion
    this.#context = context
    try {
      this.#state = criterion.init(context)
    } catch (error) {
      this.#failed = describe(error)
    }
  }

  /**
   * Drops the criterion's state once its invocation is done (a newer one started, or the stream
   * ended): it is most of a live session's heap. The early verdicts already reported are kept, so
   * a restored run reports only new ones.
   */
  release(): void {
    if (this.#failed !== undefined) return
    this.#state = undefined
    this.#released = true
  }

  /**
   * Rebuilds a released state from the invocation's events so far, as they were stepped (a late
   * event reopened the invocation): the criterion's state is a fold of its context and those events.
   */
  restore(events: readonly AdkEvent[]): void {
    if (!this.#released) return
    this.#released = false
    try {
      let state = this.#criterion.init(this.#context)
      if (this.#criterion.step) { for (const event of events) state = this.#criterion.step(state, event) }
      this.#state = state
    } catch (error) {
      this.#failed = describe(error)
    }
  }

  /** Feeds one event; returns a new early verdict when it differs from the last one reported. */
  step(event: AdkEvent): Provisional | null {
    if (this.#failed !== undefined) return null
    try {
      if (this.#criterion.step) this.#state = this.#criterion.step(this.#state, event)
      if (this.#progressFinal || !this.#criterion.progress) return null
      const provisional = this.#criterion.progress(this.#state)
      if (!provisional) return null
      const key = JSON.stringify([provisional.score, provisional.final])
      if (key === this.#lastProgress) return null
      this.#lastProgress = key
      this.#progressFinal = provisional.final
      return provisional
    } catch (error) {
      this.#failed = describe(error)
      return null
    }
  }

  /** The first outcome for the completed invocation (a score, or judge requests to run). */
  finish(actual: Invocation, timing?: InvocationTiming): Outcome {
    if (this.#failed !== undefined) return notEvaluated(this.#failed)
    try {
      return this.#criterion.finish(this.#state, actual, timing)
    } catch (error) {
      return notEvaluated(describe(error))
    }
  }

  /** Whether the criterion judges the whole conversation once the session ends. */
  get hasClosing(): boolean {
    return this.#criterion.closing !== undefined
  }

  /**
   * The criterion's closing step for the last invocation (its settled score `last`), or null when
   * the criterion has none.
   */
  closing(invocations: readonly Invocation[], last: InvocationScore): Outcome | null {
    if (!this.#criterion.closing) return null
    const { config, scenario, key, caseRubrics } = this.#context
    try {
      return this.#criterion.closing({ config, scenario, key, invocations, last, ...(caseRubrics ? { caseRubrics } : {}) })
    } catch (error) {
      return notEvaluated(describe(error))
    }
  }
}

/** Drives judge rounds until the criterion has a score. Never rejects. */
export async function settle(
  outcome: Outcome,
  judge: JudgeRunner | undefined,
  signal: AbortSignal,
  noJudgeReason = NO_JUDGE_REASON,
): Promise<InvocationScore> {
  let current = outcome
  try {
    while (current.kind === 'judge') {
      if (!judge) return { score: null, reason: noJudgeReason }
      if (signal.aborted) return { score: null, reason: `judging stopped: ${String(signal.reason ?? 'aborted')}` }
      const answers = await judge(current.requests, signal)
      current = current.resume(answers)
    }
    return current.result
  } catch (error) {
    return { score: null, reason: signal.aborted ? `judging stopped: ${String(signal.reason ?? 'aborted')}` : describe(error) }
  }
}

function notEvaluated(reason: string): Outcome {
  return { kind: 'score', result: { score: null, reason } }
}

function describe(error: unknown): string {
  return `criterion failed: ${error instanceof Error ? error.message : String(error)}`
}

/**
 * Waits for outstanding judge work, at most `limitMs`; then aborts what is left (those results
 * become NOT_EVALUATED with the reason) and waits for it to settle, so the case result is final.
 */
export async function waitForJudges(pending: ReadonlySet<Promise<void>>, limitMs: number, abort: AbortController): Promise<void> {
  if (pending.size === 0) return
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs)
  })
  await Promise.race([Promise.all([...pending]), timeout])
  clearTimeout(timer)
  if (pending.size > 0) abort.abort(`judges did not answer within ${limitMs} ms of the session end`)
  await Promise.all([...pending])
}

/**
 * One metric on one invocation: feeds the criterion the invocation's events, reports early verdicts
 * once, and settles the final score, running judge rounds when the criterion asks for them.
 * Criterion code is user-facing logic that must never take the session down: anything it throws
 * becomes NOT_EVALUATED with the error as the reason, as ADK does (spec §1.5 step 3).
 */
import { intern } from '../adk/intern.ts'
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

/**
 * Which early verdicts of one (invocation, metric) were reported. It lives in the engine's slot,
 * not in the run: a released invocation drops its runs, and a rebuilt run must not report again
 * what was reported before.
 */
export type ProgressMemo = {
  /** The last early verdict reported, as JSON [score, final]; null once a final one was (none are asked for after). */
  lastProgress: string | null | undefined
}

export class MetricRun {
  #criterion: AnyCriterion
  #context: InvocationContext<{ threshold: number | null }>
  #state: unknown
  #failed?: string

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
   * A run fed `events` without asking for early verdicts (they were reported when the events first
   * came): the criterion's state is a fold of its context and the events, so this is the run as it
   * was before its invocation was released.
   */
  static replayed(
    criterion: AnyCriterion,
    context: InvocationContext<{ threshold: number | null }>,
    events: readonly AdkEvent[],
  ): MetricRun {
    const run = new MetricRun(criterion, context)
    if (run.#failed !== undefined || !criterion.step) return run
    try {
      for (const event of events) run.#state = criterion.step(run.#state, event)
    } catch (error) {
      run.#failed = describe(error)
    }
    return run
  }

  /** The criterion threw: its result is NOT_EVALUATED with the error as the reason. */
  get failed(): boolean {
    return this.#failed !== undefined
  }

  /** Feeds one event; returns a new early verdict when it differs from the last one reported. */
  step(event: AdkEvent, memo: ProgressMemo): Provisional | null {
    if (this.#failed !== undefined) return null
    try {
      if (this.#criterion.step) this.#state = this.#criterion.step(this.#state, event)
      if (memo.lastProgress === null || !this.#criterion.progress) return null
      const provisional = this.#criterion.progress(this.#state)
      if (!provisional) return null
      // Kept per completed invocation: equal verdicts share one copy of their key.
      const key = intern(JSON.stringify([provisional.score, provisional.final]))
      if (key === memo.lastProgress) return null
      memo.lastProgress = provisional.final ? null : key
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
}

/**
 * The criterion's closing step for the last invocation (its context, its settled score `last`), or
 * null when the criterion has none. It needs no run: the last invocation's may have been released.
 */
export function closingOutcome(
  criterion: AnyCriterion,
  context: InvocationContext<{ threshold: number | null }>,
  invocations: readonly Invocation[],
  last: InvocationScore,
): Outcome | null {
  if (!criterion.closing) return null
  const { config, scenario, key, caseRubrics } = context
  try {
    return criterion.closing({ config, scenario, key, invocations, last, ...(caseRubrics ? { caseRubrics } : {}) })
  } catch (error) {
    return notEvaluated(describe(error))
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

/**
 * The Criterion contract: what every ADK criterion declares, so the engine, the CLI and the
 * Durable Object drive all of them the same way without ever branching on a criterion's name.
 *
 * A criterion is pure: no I/O, no clock, no randomness. It is fed an invocation's events as they
 * arrive (`step`), may announce an early verdict (`progress`), and scores the invocation once it is
 * complete (`finish`). Judged criteria do not call a model: `finish` returns the judge requests as
 * data and a `resume` that turns the answers into a score, so the engine owns retries, caching,
 * sampling and concurrency in one place, and a replay can feed stored answers back.
 */
import type * as z from 'zod'
import type { AdkEvent } from '../adk/event.ts'
import type { ConversationScenario } from '../adk/eval-set.ts'
import type { Invocation } from '../adk/invocation.ts'
import type { EvalStatus } from '../adk/status.ts'

/** Why a score could not be computed; shown to users as is. */
export type NotEvaluated = { reason: string }

/** One invocation's score for one criterion. `score: null` always comes with a reason. */
export type InvocationScore = {
  score: number | null
  /** Set only when the criterion decides its own status (otherwise: `score >= threshold`). */
  status?: EvalStatus
  reason?: string
  details?: Record<string, unknown>
}

/** An early verdict, before the invocation is complete (e.g. EXACT already diverged). */
export type Provisional = {
  /** `final: true` means the invocation's score for this criterion can no longer change. */
  final: boolean
  score: number | null
  details?: Record<string, unknown>
}

/** A model call a judged criterion needs, described as data. See src/judge for the executor. */
export type JudgeRequest = {
  /** Stable across replays: same criterion, invocation, prompt and sample => same id. */
  id: string
  model: string
  /** The prompt, ready to send (system instruction and user text). */
  systemInstruction?: string
  prompt: string
  /** JSON schema the answer must follow (sent as responseJsonSchema). */
  responseJsonSchema?: Record<string, unknown>
  /** Passed through from judge_model_options.judge_model_config. */
  modelConfig?: Record<string, unknown>
  /** How many independent samples to draw (num_samples). */
  samples: number
  /**
   * True once the samples so far already decide the vote (e.g. 3 of 5 agree), so the executor may
   * stop drawing more. Only consulted when samples are drawn one request at a time.
   */
  decided?(texts: string[]): boolean
  /**
   * What this request judges, said without naming who judges it, for judge services that can make
   * that judgement themselves. The judge port decides where the request goes (src/judge); `prompt`
   * is always a complete way to answer it.
   */
  assessment?: Assessment
}

/**
 * A judgement described by its subject. `safety`: how safe `response` is as the reply to `prompt`,
 * answered either as a score in [0, 1] (higher is safer) or as a text answer to the request's prompt.
 */
export type Assessment =
  | { kind: 'safety'; prompt: string; response: string }
  /** How coherent `response` is (1-5) as the reply to `prompt`, with the expected answer as reference. */
  | { kind: 'coherence'; prompt: string; response: string; reference: string }
  /** A judgement of the whole conversation, named by its ADK metric (multi_turn_*_v1): a score in [0, 1]. */
  | { kind: 'conversation'; metric: string; conversation: ConversationRecord }

/** A conversation as judge services read it: the agents, then each turn's user message, events and final response. */
export type ConversationRecord = {
  agents: Record<string, { instruction: string; tool_declarations: unknown[] }>
  turns: { turn_id: string; user: unknown; events: { author: string; content: unknown }[]; final?: unknown }[]
}

/** A judge service's verdict on one of its own rubrics, or its explanation or error, as ADK reports them. */
export type ServiceRubricScore = { rubric_id: string; rationale?: string; score?: number }

/**
 * One sample of a judge answer: a model's text answer to the prompt, a judge service's own score
 * for the request's assessment, or why it failed.
 */
export type JudgeSample = { text: string } | { score: number | null; rubric_scores?: ServiceRubricScore[] } | { error: string }

/**
 * What a judge gave back for one request. `via` is the judge port's name for the service that
 * answered (absent when none did, e.g. past the judge deadline): reported as is, never branched on.
 */
export type JudgeAnswer = { id: string; via?: string; samples: JudgeSample[] }

export type Outcome =
  | { kind: 'score'; result: InvocationScore }
  | {
    kind: 'judge'
    requests: JudgeRequest[]
    /** Called once with an answer for every request; may ask for another round (hallucinations_v1). */
    resume(answers: JudgeAnswer[]): Outcome
  }

/** Everything a criterion may look at when it starts an invocation. */
export type InvocationContext<Config> = {
  config: Config
  /** The n-th expected invocation of the eval case, when there is one. */
  expected?: Invocation
  /** Rubrics that apply to this invocation (criterion, case and expected-invocation rubrics). */
  caseRubrics?: Invocation['rubrics']
  /** Stable id of this (session, invocation, metric), used to build JudgeRequest ids. */
  key: string
  /** The eval case's conversation scenario, when the conversation is simulated (spec §5). */
  scenario?: ConversationScenario
  /** The session's invocations before this one, as built when it is asked (i.e. at `finish`). */
  previous?: () => readonly Invocation[]
}

/** What a criterion's `closing` step sees, once the session has ended and its last invocation has a score. */
export type ClosingContext<Config> = {
  config: Config
  scenario?: ConversationScenario
  /** Every invocation of the session, in order. */
  invocations: readonly Invocation[]
  /** The last invocation's settled score for this criterion. */
  last: InvocationScore
  /** InvocationContext.key of the last invocation. */
  key: string
  /** InvocationContext.caseRubrics of the last invocation. */
  caseRubrics?: Invocation['rubrics']
}

/** The overall result of a criterion over all invocations of a case. */
export type OverallScore = {
  score: number | null
  status: EvalStatus
  reason?: string
  details?: Record<string, unknown>
}

/**
 * What the host measured while the invocation ran, by the clock the engine was given: absent when
 * the events were not received live (a capture read from a file, `evalstream eval`).
 */
export type InvocationTiming = {
  /** From the invocation's first event arriving to its completion, in milliseconds. */
  durationMs: number
}

export interface Criterion<Config extends { threshold: number | null }, State> {
  /** ADK's metric name, e.g. 'tool_trajectory_avg_score'. */
  key: string
  description: string
  /**
   * Reported for every session without being configured, with no threshold (status INFORMATIONAL),
   * after the configured metrics; configuring it is a config error (ADK's efficiency metrics).
   */
  alwaysReported?: boolean
  /** Parses this criterion's EvalConfig entry (after the number shorthand is expanded). */
  config: z.ZodType<Config>
  /** Reference-based (needs the expected invocation) or reference-free. */
  needsExpected: boolean
  /** Whether it calls a judge model. */
  judged: boolean
  /**
   * Reads the session's earlier invocations while the session runs (`context.previous`). A session
   * scoring such a metric keeps its whole conversation in memory; others let a completed
   * invocation's events go when their host can read them back (the journal).
   */
  readsPrevious?: boolean
  /** The interval its scores lie in, as ADK's metric info declares it; default [0, 1]. */
  scoreRange?: { min: number; max: number }
  init(context: InvocationContext<Config>): State
  /** Called for each event of the invocation, in arrival order (partial chunks included). */
  step?(state: State, event: AdkEvent): State
  progress?(state: State): Provisional | null
  /** Once, with the complete actual invocation as ADK would build it (and its timing, when measured). */
  finish(state: State, actual: Invocation, timing?: InvocationTiming): Outcome
  /**
   * Once, when the session ends: a judgement over the whole conversation that may revise the LAST
   * invocation's score (per_turn_user_simulator_quality_v1's stop-signal turn). Its final result
   * replaces `last` unless it is `last` itself (the same object: nothing changes).
   */
  closing?(context: ClosingContext<Config>): Outcome
  /** Per-invocation scores to the overall score; defaults to ADK's mean of non-null scores. */
  aggregate?(scores: InvocationScore[], config: Config): OverallScore
}

/** A criterion with its types erased, as the registry holds them. */
// The registry must hold criteria of every config and state type: only `any` accepts them all.
// deno-lint-ignore no-explicit-any
export type AnyCriterion = Criterion<any, any>

/**
 * One run of one eval case against a live agent: create a session on the agent, send each user
 * message to `/run_sse`, push every event into a session engine as it arrives (the same engine
 * and judge wiring as the service), complete the invocation when the response ends, and end the
 * engine for the case result. Any failure of the agent makes this run NOT_EVALUATED with the
 * reason; it never throws.
 */
import type { AdkEvent } from '../adk/event.ts'
import type { Content } from '../adk/content.ts'
import type { EvalCase } from '../adk/eval-set.ts'
import { type EvalCaseResult, evalCaseResult } from '../adk/results.ts'
import type { CaseStatus } from '../adk/status.ts'
import type { CriterionResultData, EngineEmission, SessionEngine } from '../engine/types.ts'
import type { EngineFactory } from '../session/session.ts'
import { decodeFrameValue, DEFAULT_LIMITS, isIngestIssue, type Limits } from '../ingest/index.ts'
import { countedTarget, feedSession, type FeedTarget } from '../session/feed.ts'
import { AgentError, type AgentTarget, createAgentSession, runTurn } from './agent-client.ts'
import { type TurnSource, TurnSourceError } from './turn-source.ts'

/** ADK's inference default when an eval case has no session_input (spec §1.5). */
export const DEFAULT_USER_ID = 'test_user_id'
/** A conversation longer than this many turns is cut off (a runaway turn source), in turns. */
export const MAX_TURNS = 1_000

export type Timeouts = { sessionMs: number; turnMs: number }

export type CaseRunInput = {
  evalSetId: string
  evalCase: EvalCase
  evalConfig: unknown
  /** 0-based repetition (`--num-runs`). */
  run: number
  target: AgentTarget
  createEngine: EngineFactory
  /** The user's messages, or why this case cannot be driven (it is then NOT_EVALUATED, no agent call). */
  turns: TurnSource | { unsupported: string }
  timeouts: Timeouts
  signal: AbortSignal
  /** Every engine result as it is emitted (live display, HTTP stream). */
  onResult?(body: EngineEmission): void
  /** An invocation's /run_sse response ended and the invocation was completed. */
  onInvocation?(index: number): void
  /** The raw /run_sse bytes of each turn, in order (to keep a capture of the run). */
  onBytes?(bytes: Uint8Array): void
  /** Times invocations as their events arrive (invocation_duration_v1), in ms; default Date.now. */
  clock?: () => number
  /** The per-event and per-session limits the session's feed holds; DEFAULT_LIMITS when absent. */
  limits?: Limits
}

export type CaseRunOutcome = {
  evalSetId: string
  evalId: string
  run: number
  status: CaseStatus
  /** Why the run is NOT_EVALUATED because of the agent (or why a metric could not score). */
  reason?: string
  /** The agent's session id, once created. */
  sessionId?: string
  userId: string
  invocations: number
  caseResult: EvalCaseResult
  results: CriterionResultData[]
  /** Frames that were not valid events; the run still counts. */
  warnings: string[]
}

/**
 * @example
 * const outcome = await runCase({ evalSetId: 'weather', evalCase, evalConfig, run: 0, target, createEngine, turns: staticTurns(evalCase.conversation!), timeouts, signal })
 * outcome.status // 'PASSED'
 */
export async function runCase(input: CaseRunInput): Promise<CaseRunOutcome> {
  const userId = input.evalCase.session_input?.user_id ?? DEFAULT_USER_ID
  const results: CriterionResultData[] = []
  const warnings: string[] = []
  let sessionId: string | undefined
  let engine: SessionEngine | undefined
  // Frees the judge executor's per-session state (slots, budgets) once this run is over.
  let release: (() => void) | undefined
  let invocations = 0
  const base = { evalSetId: input.evalSetId, evalId: input.evalCase.eval_id, run: input.run, userId }
  const notEvaluated = (reason: string): CaseRunOutcome => {
    engine?.abort(reason)
    const caseResult = evalCaseResult({
      evalSetId: input.evalSetId,
      evalId: input.evalCase.eval_id,
      overall: [],
      perInvocation: [],
      sessionId: sessionId ?? '',
      userId,
      finalEvalStatus: 'NOT_EVALUATED',
    })
    return { ...base, status: 'NOT_EVALUATED', reason, sessionId, invocations, caseResult, results, warnings }
  }

  if ('unsupported' in input.turns) return notEvaluated(input.turns.unsupported)
  const turns = input.turns
  try {
    const state = input.evalCase.session_input?.state ?? {}
    sessionId = await createAgentSession(input.target, userId, state, { timeoutMs: input.timeouts.sessionMs, signal: input.signal })
    const created = input.createEngine({
      spec: { session_id: sessionId, eval_config: input.evalConfig, eval_case: input.evalCase },
      clock: input.clock ?? Date.now,
      emit: (body) => {
        if (body.type === 'criterion.result') results.push(body.data)
        input.onResult?.(body)
      },
    })
    if (!created.ok) return notEvaluated(`${created.problem.title}: ${created.problem.detail}`)
    engine = created.engine
    release = created.release

    const sent: Content[] = []
    const agentEvents: AdkEvent[] = []
    let index = 0
    const target = countedTarget(engine)
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const message = await turns.next({ turn, sent, agentEvents }, input.signal)
      if (message === undefined) break
      sent.push(message)
      const failure = await sendTurn(input, target, { userId, sessionId, message, firstIndex: index }, agentEvents, warnings)
      index = failure.nextIndex
      engine.completeInvocation()
      if (failure.agentError) return notEvaluated(`turn ${turn + 1}: the agent reported an error: ${failure.agentError}`)
      invocations += 1
      input.onInvocation?.(turn)
    }
    const caseResult = await engine.end()
    const finished = { ...caseResult, eval_set_file: input.evalSetId, eval_set_id: input.evalSetId, user_id: userId }
    const status = finished.final_eval_status
    return { ...base, status, sessionId, invocations, caseResult: finished, results, warnings }
  } catch (e) {
    if (e instanceof AgentError || e instanceof TurnSourceError) return notEvaluated(e.message)
    return notEvaluated(`internal error: ${e instanceof Error ? e.message : String(e)}`)
  } finally {
    release?.()
  }
}

/**
 * Streams one turn into the engine. ADK's /run_sse never echoes the user's message, so it is
 * pushed as the invocation's user event, under the invocation id the agent's first event names
 * (as ADK's own inference inserts it, and as proxy mode does).
 */
async function sendTurn(
  input: CaseRunInput,
  target: FeedTarget,
  turn: { userId: string; sessionId: string; message: Content; firstIndex: number },
  agentEvents: AdkEvent[],
  warnings: string[],
): Promise<{ nextIndex: number; agentError?: string }> {
  let userSent = false
  let agentError: string | undefined
  const feed = feedSession(target, 'sse', input.limits ?? DEFAULT_LIMITS, {
    firstIndex: turn.firstIndex,
    before(item) {
      if (!userSent && item.event.invocation_id && item.event.author !== 'user') {
        userSent = true
        const user = decodeFrameValue({ invocationId: item.event.invocation_id, author: 'user', content: turn.message }, item.index)
        if (!isIngestIssue(user)) feed.pushEvent(user)
      }
      agentEvents.push(item.event)
    },
    issue(issue) {
      if (issue.kind === 'agent_error') agentError ??= issue.message
      else warnings.push(`event ${issue.index}: ${issue.message}${issue.path ? ` (at ${issue.path})` : ''}`)
    },
  })
  await runTurn(input.target, { userId: turn.userId, sessionId: turn.sessionId, newMessage: turn.message }, {
    timeoutMs: input.timeouts.turnMs,
    signal: input.signal,
    onChunk(bytes) {
      input.onBytes?.(bytes)
      feed.push(bytes)
    },
  })
  feed.end()
  if (feed.stopped) warnings.push(feed.stopped.problem.detail)
  return { nextIndex: turn.firstIndex + feed.frames, agentError }
}

/**
 * `runEvalSets`: ADK eval sets against a live agent, as `adk eval` runs them. Every (case, run)
 * pair is one unit of work; at most `parallel` units talk to the agent at a time, each in its own
 * agent session with its own engine. A unit the agent fails is NOT_EVALUATED with the reason and
 * never stops the others. Results come back as ADK EvalSetResults (one per eval set, every run of
 * every case) plus a verdict per case. Runtime-neutral: no node:*, the caller passes `fetch`.
 */
import { MAX_TIMER_MS } from '../ingest/timer-ms.ts'
import type { Limits } from '../ingest/limits.ts'
import type { EvalSet } from '../adk/eval-set.ts'
import { type EvalSetResult, evalSetResult } from '../adk/results.ts'
import type { CaseStatus } from '../adk/status.ts'
import { createSessionEngine } from '../engine/session-engine.ts'
import type { EngineEmission } from '../engine/types.ts'
import type { EngineFactory } from '../session/session.ts'
import { type AgentTarget, DEFAULT_SESSION_TIMEOUT_MS, DEFAULT_TURN_TIMEOUT_MS } from './agent-client.ts'
import { type CaseVerdict, caseVerdict } from './aggregate-runs.ts'
import { type CaseRunOutcome, runCase, type Timeouts } from './run-case.ts'
import type { TurnSourceFactory } from './turn-source.ts'
import { type SimulatorModel, userSimulationTurnSources } from './user-sim-source.ts'

/** Cases in flight at once when not told otherwise (ADK's inference default). */
export const DEFAULT_PARALLEL = 4
/** The most cases in flight at once a run may ask for. */
export const MAX_PARALLEL = 64
/** Runs per case when not told otherwise (`adk eval` runs each case once). */
export const DEFAULT_NUM_RUNS = 1
/** The most runs per case a run may ask for. */
export const MAX_NUM_RUNS = 100

export type EvalSetInput = {
  evalSet: EvalSet
  /** Only these cases (they must exist); all cases when absent or empty. */
  caseIds?: string[]
  /** ADK EvalConfig JSON; absent means ADK's default criteria. */
  evalConfig?: unknown
  /** Where the eval set came from (a file name), for error messages. */
  source?: string
}

/** Names one unit of work. */
export type UnitRef = { evalSetId: string; evalId: string; run: number }

export type RunProgress =
  | { type: 'run.started'; cases: number; units: number; invocations: number }
  | { type: 'case.started'; unit: UnitRef }
  | { type: 'invocation.done'; unit: UnitRef; index: number }
  | { type: 'result'; unit: UnitRef; body: EngineEmission }
  | { type: 'case.done'; outcome: CaseRunOutcome }

export type RunOptions = {
  agent: AgentTarget
  /** Builds each session's engine (judge wiring included); default: the engine with no judge. */
  createEngine?: EngineFactory
  parallel?: number
  numRuns?: number
  timeouts?: Partial<Timeouts>
  /** Where user messages come from; default: static conversations, and the user simulator (with `simulator`) for scenarios. */
  turnSources?: TurnSourceFactory
  /** The model behind the user simulator of conversation_scenario cases (the judge executor); without it they are NOT_EVALUATED. */
  simulator?: SimulatorModel
  /** The per-event and per-session limits each session's feed holds (EVALSTREAM_MAX_*); DEFAULT_LIMITS when absent. */
  limits?: Limits
  signal?: AbortSignal
  onProgress?(event: RunProgress): void
  /** The raw /run_sse bytes of each unit, turn after turn (a capture `evalstream eval` can read). */
  onBytes?(unit: UnitRef, bytes: Uint8Array): void
  /** Seconds since the epoch, for result ids; default the clock. */
  now?: () => number
}

export type EvalSetRun = { evalSetId: string; source?: string; evalSetResult: EvalSetResult; cases: CaseVerdict[] }

export type Totals = Record<CaseStatus, number> & { cases: number }

export type RunReport = { ok: true; passed: boolean; totals: Totals; sets: EvalSetRun[] } | { ok: false; error: string }

type Unit = { set: number; ref: UnitRef; input: EvalSetInput; caseIndex: number }

/**
 * @example
 * const report = await runEvalSets([{ evalSet, evalConfig }], { agent: { url: 'http://127.0.0.1:8000', app: 'weather_agent' }, parallel: 8 })
 * if (report.ok) console.log(report.passed, report.totals)
 */
export async function runEvalSets(sets: EvalSetInput[], options: RunOptions): Promise<RunReport> {
  const planned = planRun(sets, options)
  return planned.ok ? planned.start() : planned
}

/**
 * Checks everything that is bad input (synchronously, before any agent call) and returns the run
 * ready to start, so an HTTP host can answer 4xx or 202 before the run begins.
 * @example
 * const plan = planRun(sets, options)
 * if (!plan.ok) return problem(c, 'invalid_run', 'Invalid run', plan.error)
 * void plan.start()
 */
export function planRun(
  sets: EvalSetInput[],
  options: RunOptions,
): { ok: true; start(): Promise<RunReport> } | { ok: false; error: string } {
  const checked = check(sets, options)
  return checked.ok ? { ok: true, start: () => execute(sets, options, checked) } : checked
}

async function execute(sets: EvalSetInput[], options: RunOptions, checked: Extract<Checked, { ok: true }>): Promise<RunReport> {
  const { parallel, numRuns, createEngine, picked, turnSources } = checked
  const timeouts: Timeouts = {
    sessionMs: options.timeouts?.sessionMs ?? DEFAULT_SESSION_TIMEOUT_MS,
    turnMs: options.timeouts?.turnMs ?? DEFAULT_TURN_TIMEOUT_MS,
  }
  const signal = options.signal ?? new AbortController().signal
  const progress = options.onProgress ?? (() => {})

  const units: Unit[] = []
  picked.forEach((cases, set) => {
    const input = sets[set]!
    for (const caseIndex of cases) {
      for (let run = 0; run < numRuns; run++) {
        units.push({
          set,
          input,
          caseIndex,
          ref: { evalSetId: input.evalSet.eval_set_id, evalId: input.evalSet.eval_cases[caseIndex]!.eval_id, run },
        })
      }
    }
  })
  const invocations = units.reduce((n, u) => n + (u.input.evalSet.eval_cases[u.caseIndex]!.conversation?.length ?? 0), 0)
  progress({ type: 'run.started', cases: picked.reduce((n, c) => n + c.length, 0), units: units.length, invocations })

  const outcomes = new Array<CaseRunOutcome>(units.length)
  await boundedAll(units.length, parallel, async (i) => {
    const unit = units[i]!
    const evalCase = unit.input.evalSet.eval_cases[unit.caseIndex]!
    progress({ type: 'case.started', unit: unit.ref })
    // A case this run cannot drive (no simulator model) still gets its NOT_EVALUATED entry.
    const chosen = turnSources(evalCase, { evalConfig: unit.input.evalConfig })
    const source = 'invalid' in chosen ? { unsupported: chosen.invalid } : chosen
    const outcome = await runCase({
      evalSetId: unit.ref.evalSetId,
      evalCase,
      evalConfig: unit.input.evalConfig,
      run: unit.ref.run,
      target: options.agent,
      createEngine,
      turns: source,
      timeouts,
      signal,
      limits: options.limits,
      onResult: (body) => progress({ type: 'result', unit: unit.ref, body }),
      onInvocation: (index) => progress({ type: 'invocation.done', unit: unit.ref, index }),
      onBytes: options.onBytes ? (bytes) => options.onBytes!(unit.ref, bytes) : undefined,
    })
    outcomes[i] = outcome
    progress({ type: 'case.done', outcome })
  })

  const timestamp = (options.now ?? (() => Date.now() / 1000))()
  const totals: Totals = { cases: 0, PASSED: 0, FAILED: 0, NOT_EVALUATED: 0 }
  const runs: EvalSetRun[] = picked.map((cases, set) => {
    const input = sets[set]!
    const mine = units.map((u, i) => ({ u, o: outcomes[i]! })).filter(({ u }) => u.set === set)
    const verdicts = cases.map((caseIndex) => caseVerdict(mine.filter(({ u }) => u.caseIndex === caseIndex).map(({ o }) => o)))
    for (const v of verdicts) {
      totals.cases += 1
      totals[v.status] += 1
    }
    return {
      evalSetId: input.evalSet.eval_set_id,
      ...(input.source !== undefined ? { source: input.source } : {}),
      evalSetResult: evalSetResult({
        appName: options.agent.app,
        evalSetId: input.evalSet.eval_set_id,
        caseResults: mine.map(({ o }) => o.caseResult),
        timestamp,
      }),
      cases: verdicts,
    }
  })
  // As `adk eval` counts: NOT_EVALUATED is not a pass.
  return { ok: true, passed: totals.cases > 0 && totals.PASSED === totals.cases, totals, sets: runs }
}

/**
 * One eval set; see runEvalSets.
 * @example const report = await runEvalSet({ evalSet, caseIds: ['paris'] }, { agent: { url, app: 'weather_agent' } })
 */
export function runEvalSet(set: EvalSetInput, options: RunOptions): Promise<RunReport> {
  return runEvalSets([set], options)
}

type Checked =
  | { ok: true; parallel: number; numRuns: number; createEngine: EngineFactory; turnSources: TurnSourceFactory; picked: number[][] }
  | { ok: false; error: string }

/** Everything that is bad input fails here, before the agent sees a request. */
function check(sets: EvalSetInput[], options: RunOptions): Checked {
  const parallel = options.parallel ?? DEFAULT_PARALLEL
  const numRuns = options.numRuns ?? DEFAULT_NUM_RUNS
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > MAX_PARALLEL) {
    return { ok: false, error: `parallel must be a whole number from 1 to ${MAX_PARALLEL}, not ${parallel}` }
  }
  if (!Number.isInteger(numRuns) || numRuns < 1 || numRuns > MAX_NUM_RUNS) {
    return { ok: false, error: `num runs must be a whole number from 1 to ${MAX_NUM_RUNS}, not ${numRuns}` }
  }
  try {
    const url = new URL(options.agent.url)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http')
  } catch {
    return { ok: false, error: `the agent URL must be an http(s) URL, not '${options.agent.url}'` }
  }
  if (!options.agent.app) return { ok: false, error: 'the agent app name is required' }
  if (sets.length === 0) return { ok: false, error: 'no eval set given' }
  for (const key of ['sessionMs', 'turnMs'] as const) {
    const ms = options.timeouts?.[key]
    // A timer takes at most 2^31-1 ms; a longer delay would fire at once instead of never.
    if (ms !== undefined && !(Number.isFinite(ms) && ms > 0 && ms <= MAX_TIMER_MS)) {
      return { ok: false, error: `timeout ${key} must be a positive number of milliseconds up to ${MAX_TIMER_MS} (2^31-1), not ${ms}` }
    }
  }
  const createEngine: EngineFactory = options.createEngine ?? ((o) => createSessionEngine(o))
  const turnSources = options.turnSources ?? userSimulationTurnSources({ model: options.simulator })
  const picked: number[][] = []
  for (const input of sets) {
    const where = input.source ?? input.evalSet.eval_set_id
    const cases = input.evalSet.eval_cases
    const ids = cases.map((c) => c.eval_id)
    if (cases.length === 0) return { ok: false, error: `${where}: the eval set has no eval cases` }
    const wanted = input.caseIds?.length ? input.caseIds : ids
    const indexes: number[] = []
    for (const id of wanted) {
      const index = ids.indexOf(id)
      if (index < 0) return { ok: false, error: `${where}: no eval case '${id}' (cases: ${ids.join(', ')})` }
      if (!indexes.includes(index)) indexes.push(index)
    }
    indexes.sort((a, b) => a - b)
    // The engine refuses a bad config or case here, once, instead of in every unit.
    for (const index of indexes) {
      const probe = createEngine({ spec: { session_id: 'check', eval_config: input.evalConfig, eval_case: cases[index] }, emit: () => {} })
      if (!probe.ok) return { ok: false, error: `${where}: eval case '${ids[index]}': ${probe.problem.title}: ${probe.problem.detail}` }
      probe.engine.abort('configuration check only')
      const source = turnSources(cases[index]!, { evalConfig: input.evalConfig })
      if ('invalid' in source) return { ok: false, error: `${where}: eval case '${ids[index]}': ${source.invalid}` }
    }
    picked.push(indexes)
  }
  return { ok: true, parallel, numRuns, createEngine, turnSources, picked }
}

/** Runs work(0..count-1) with at most `limit` in flight; work must not throw. */
async function boundedAll(count: number, limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let nextIndex = 0
  const worker = async () => {
    while (nextIndex < count) await work(nextIndex++)
  }
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker))
}

/**
 * Every result key the engine gives out, built in one place. A key names a result logically: the
 * same inputs (spec, events, judge answers) give the same keys on replay, even when judged results
 * come back in another order, so a host rebuilding a session skips exactly the results its log
 * already holds (src/session/session.ts).
 *
 * Keys name a metric by its name (URI-encoded), not by its position in the config: names are what
 * a reader of the log understands, and a metric keeps its keys when another metric is added before
 * it. Names are unique within a session (they are the keys of the config's `criteria` object).
 *
 *   started/{invocation index}
 *   progress/{invocation index}/{metric name}/{early verdict number, from 1}
 *   result/{invocation index}/{metric name}/{revision, from 0}
 *   error/{rejected event number, from 1}
 *   case
 */

/** `invocation.started` of the n-th invocation (0-based). @example startedKey(0) // 'started/0' */
export function startedKey(invocation: number): string {
  return `started/${invocation}`
}

/**
 * The `count`-th early verdict (1-based) of a metric on an invocation.
 * @example progressKey(0, 'response_match_score', 2) // 'progress/0/response_match_score/2'
 */
export function progressKey(invocation: number, metricName: string, count: number): string {
  return `progress/${invocation}/${encodeURIComponent(metricName)}/${count}`
}

/**
 * A metric's result on an invocation; `revision` counts the times the invocation reopened.
 * @example resultKey(1, 'tool_trajectory_avg_score', 0) // 'result/1/tool_trajectory_avg_score/0'
 */
export function resultKey(invocation: number, metricName: string, revision: number): string {
  return `result/${invocation}/${encodeURIComponent(metricName)}/${revision}`
}

/** The n-th rejected event (1-based) of the session. @example errorKey(1) // 'error/1' */
export function errorKey(count: number): string {
  return `error/${count}`
}

/** The session's one case result. */
export const CASE_KEY = 'case'

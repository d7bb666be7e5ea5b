/**
 * tool_call_count_v1 (newer ADK, informational): the tool calls the agent made in an invocation,
 * taken from the invocation's trajectory (the calls `tool_trajectory_avg_score` compares), sub-agents
 * included. The case's value is the mean per invocation ("tool calls per turn").
 */
import { toolCallsOf } from '../../adk/invocation.ts'
import type { Criterion } from '../criterion.ts'
import { informational, informationalMean, type NoConfig, noThresholdConfig } from './efficiency.ts'

const KEY = 'tool_call_count_v1'

/**
 * @example tool_call_count_v1 on an invocation that called get_weather twice scores 2
 */
export const toolCallCountV1: Criterion<NoConfig, null> = {
  key: KEY,
  description:
    'Informational, always reported: tool calls the agent made per invocation (mean over the case). Never passes or fails; a threshold on it is a config error.',
  config: noThresholdConfig(KEY) as never,
  alwaysReported: true,
  needsExpected: false,
  judged: false,
  init: () => null,
  finish: (_state, actual) => ({ kind: 'score', result: informational(toolCallsOf(actual).length) }),
  aggregate: informationalMean,
}

/**
 * inference_call_count_v1 (newer ADK, informational): the model calls behind an invocation. ADK
 * counts every recorded model response, the one that produced the final response included: an event
 * with `usageMetadata` or `modelVersion`. Streamed chunks (`partial: true`) repeat the metadata of
 * the answer they are part of and are not counted (efficiency.ts). An invocation whose events carry
 * neither field has no value (n/a: the agent's model backend did not report them), not 0.
 */
import type { AdkEvent } from '../../adk/event.ts'
import type { Criterion } from '../criterion.ts'
import { informational, informationalMean, isCountedAgentEvent, isModelCallEvent, type NoConfig, noThresholdConfig } from './efficiency.ts'

const KEY = 'inference_call_count_v1'

type State = { calls: number; agentEvents: number }

/**
 * @example inference_call_count_v1 on a tool call then a final answer, both with usageMetadata, scores 2
 */
export const inferenceCallCountV1: Criterion<NoConfig, State> = {
  key: KEY,
  description:
    'Informational, always reported: model calls per invocation (events with usageMetadata or modelVersion; mean over the case). Never passes or fails; a threshold on it is a config error.',
  config: noThresholdConfig(KEY) as never,
  alwaysReported: true,
  needsExpected: false,
  judged: false,
  init: () => ({ calls: 0, agentEvents: 0 }),
  step(state: State, event: AdkEvent): State {
    if (!isCountedAgentEvent(event)) return state
    state.agentEvents += 1
    if (isModelCallEvent(event)) state.calls += 1
    return state
  },
  finish(state) {
    if (state.calls === 0) {
      return {
        kind: 'score',
        result: informational(
          null,
          state.agentEvents === 0
            ? 'the invocation has no events from the agent'
            : 'no event of the invocation carries usageMetadata or modelVersion (the model backend did not report its calls)',
        ),
      }
    }
    return { kind: 'score', result: informational(state.calls) }
  },
  aggregate: informationalMean,
}

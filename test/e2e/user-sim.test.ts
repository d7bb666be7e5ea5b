/**
 * A conversation_scenario case through `evalstream run` against a REAL ADK for JavaScript
 * api_server (the scripted weather agent, streaming): the user simulator's model (and the judge of
 * per_turn_user_simulator_quality_v1) is the loopback Gemini stub behind the real @google/genai SDK.
 * The agent gets the starting prompt, then the simulator's message; the simulator sees the agent's
 * streamed answer once (partial chunks left out), without tool calls; its stop signal ends the case.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand } from '../../src/adapter/node/run-command.ts'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { type GeminiStub, type RecordedRequest, startGeminiStub } from '../support/gemini-stub.ts'

const APP = 'scripted_weather_agent'
const START = 'Weather and time in Paris?'
const PARIS = 'In Paris it is sunny, 21C, and the time is 10:30.'

type Json = Record<string, any>
let agent: AdkAgent
let gemini: GeminiStub
let dir: string

beforeAll(async () => {
  ;[agent, gemini] = await Promise.all([startAdkAgent({ apps: [APP], chunkDelayMs: 0 }), startGeminiStub()])
  dir = mkdtempSync(join(tmpdir(), 'evalstream-usersim-e2e-'))
}, 120_000)
afterAll(async () => {
  await Promise.all([agent?.stop(), gemini?.close()])
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const isJudge = (r: RecordedRequest) => r.body?.systemInstruction !== undefined
const promptOf = (r: RecordedRequest): string => r.body.contents[0].parts[0].text

describe('user simulation against the real ADK JS agent', () => {
  it('evalstream run drives a conversation_scenario case until the stop signal and scores the simulator', async () => {
    const simulator = ['And what about Tokyo?', 'Thanks, that is all I needed. </finished>']
    let next = 0
    gemini.handle((r) => {
      if (isJudge(r)) return { candidates: Array(r.body.generationConfig?.candidateCount ?? 1).fill('{"criteria": [], "is_valid": true}') }
      return { candidates: [simulator[next++]!] }
    })
    const evalSetPath = join(dir, 'scenario.evalset.json')
    const configPath = join(dir, 'config.json')
    writeFileSync(
      evalSetPath,
      JSON.stringify({
        eval_set_id: 'scenarios',
        eval_cases: [
          {
            eval_id: 'paris_then_tokyo',
            conversation_scenario: {
              starting_prompt: START,
              conversation_plan: 'Ask for the weather and time in Paris, then in Tokyo.',
              user_persona: 'EVALUATOR',
            },
          },
        ],
      }),
    )
    writeFileSync(
      configPath,
      JSON.stringify({
        criteria: {
          per_turn_user_simulator_quality_v1: { threshold: 1, judge_model_options: { num_samples: 3 } },
          tool_trajectory_avg_score: 1,
        },
        user_simulator_config: { type: 'llm_backed', model: 'gemini-2.5-flash', max_allowed_invocations: 5 },
      }),
    )
    let out = ''
    let err = ''
    const code = await runCommand([evalSetPath, '--agent', agent.url, '--app', APP, '--config', configPath, '--json'], {
      env: { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url },
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      isTTY: false,
    })
    expect(err).not.toMatch(/error/i)
    expect(code).toBe(0)
    const result = (JSON.parse(out) as Json).eval_case_results[0] as Json
    const turns = result.eval_metric_result_per_invocation as Json[]
    expect(turns.map((t) => t.actual_invocation.user_content.parts[0].text)).toEqual([START, 'And what about Tokyo?'])
    expect(turns[1]!.actual_invocation.final_response.parts[0].text).toBe('In Tokyo it is cloudy, 17C, and the time is 17:30.')
    expect(turns.every((t) => t.expected_invocation === null)).toBe(true)

    // The simulator saw each streamed answer once, as `author: text`, and no tool call.
    const sim = gemini.requests.filter((r) => !isJudge(r))
    expect(sim).toHaveLength(2)
    expect(promptOf(sim[1]!)).toContain(
      `user: ${START}\n\n${APP}: ${PARIS}\n\nuser: And what about Tokyo?\n\n${APP}: In Tokyo it is cloudy`,
    )
    expect(promptOf(sim[1]!)).not.toContain('get_weather')

    const overall = Object.fromEntries((result.overall_eval_metric_results as Json[]).map((m) => [m.metric_name, [m.score, m.eval_status]]))
    // Statuses in ADK's file shape: 1 PASSED, 3 NOT_EVALUATED (no expected invocations to compare tools with).
    expect(overall).toMatchObject({ per_turn_user_simulator_quality_v1: [1, 1], tool_trajectory_avg_score: [null, 3] })
    // The efficiency metrics ride along, INFORMATIONAL (4): two tool calls over the two turns.
    expect(overall.tool_call_count_v1).toEqual([2, 4])
    expect(Object.keys(overall).sort()).toEqual([
      'inference_call_count_v1',
      'invocation_duration_v1',
      'per_turn_user_simulator_quality_v1',
      'token_usage_v1',
      'tool_call_count_v1',
      'tool_trajectory_avg_score',
    ])
    expect(result.final_eval_status).toBe(1)
  })
})

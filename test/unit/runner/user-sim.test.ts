/**
 * User simulation (conversation_scenario) through runEvalSets: the REAL @google/genai SDK behind
 * the judge executor talks to the loopback Gemini stub (the simulator's model), and the loopback
 * ADK stand-in plays the agent. What is checked is what the agent is sent and what the model is
 * asked: starting prompt verbatim, the stop signal anywhere in a reply (any case) ending the
 * conversation, the turn limit (ADK's default 20, a configured one, -1 unlimited), the history
 * format, personas by id and as objects, and custom_instructions placeholders.
 * Covers: src/runner/user-sim-source.ts, src/runner/user-sim-prompt.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EvalSet } from '../../../src/adk/eval-set.ts'
import { BUILT_IN_PERSONA_DEFINITIONS } from '../../../src/core/personas.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { createApp } from '../../../src/http/app.ts'
import { judgedEngines, judgeWiringFromEnv } from '../../../src/config/judge-wiring.ts'
import { runEvalSets, type RunOptions } from '../../../src/runner/index.ts'
import { apiError, type GeminiStub, type RecordedRequest, startGeminiStub } from '../../support/gemini-stub.ts'
import { FINAL_TEXT } from '../../support/weather-fixtures.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const AUTHOR = 'stub_gemini_agent'
const START = 'What is the weather in Paris?'
const PLAN = 'Ask for the weather in Paris, then for the local time there. Then you are done.'

let gemini: GeminiStub
let agent: StubAgent
beforeEach(async () => {
  gemini = await startGeminiStub()
  agent = await startStubAgent()
})
afterEach(async () => {
  await agent.close()
  await gemini.close()
})

const promptOf = (r: RecordedRequest): string => r.body?.contents?.[0]?.parts?.[0]?.text ?? ''
const isJudge = (r: RecordedRequest) => r.body?.systemInstruction !== undefined
const simulatorRequests = () => gemini.requests.filter((r) => !isJudge(r))
const sentTexts = () => agent.turns.map((t) => t.body.newMessage.parts[0].text as string)

/** The simulator's model says each reply in turn (the last one again when they run out). */
function simulatorSays(...replies: string[]) {
  let next = 0
  gemini.handle((r) => {
    if (isJudge(r)) return { candidates: Array(r.body.generationConfig?.candidateCount ?? 1).fill('{"criteria": [], "is_valid": true}') }
    const text = replies[Math.min(next++, replies.length - 1)]!
    return { candidates: [text] }
  })
}

function scenarioSet(scenario: Record<string, unknown>, id = 'sim') {
  return EvalSet.parse({
    eval_set_id: 'sim_set',
    eval_cases: [{ eval_id: id, conversation_scenario: { starting_prompt: START, conversation_plan: PLAN, ...scenario } }],
  })
}

async function run(scenario: Record<string, unknown>, evalConfig: unknown = { criteria: {} }, extra: Partial<RunOptions> = {}) {
  const wiring = judgeWiringFromEnv({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url })
  if (!wiring.ok) throw new Error(wiring.error)
  const report = await runEvalSets([{ evalSet: scenarioSet(scenario), evalConfig }], {
    agent: { url: agent.url, app: 'weather_agent' },
    createEngine: judgedEngines(wiring.value.judging),
    simulator: wiring.value.executor,
    ...extra,
  })
  if (!report.ok) throw new Error(report.error)
  return report.sets[0]!.cases[0]!
}

describe('LLM-backed user simulator', () => {
  it("sends the starting prompt verbatim, then the model's messages; a reply with the stop signal (any case) ends it unsent", async () => {
    simulatorSays('And what time is it there?', 'Great, thanks! </FINISHED> bye')
    const verdict = await run({})
    expect(sentTexts()).toEqual([START, 'And what time is it there?'])
    expect(simulatorRequests()).toHaveLength(2)
    expect(verdict.runs[0]!.invocations).toBe(2)
    // The model is asked with ADK's default model and thinking configuration.
    const first = simulatorRequests()[0]!
    expect(first.model).toBe('gemini-2.5-flash')
    expect(first.body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 10240 })
  })

  it('shows the history as author: text lines, tool calls and responses left out; with include_function_calls they are in', async () => {
    simulatorSays('And what time is it there?', '</finished>')
    await run({})
    const expected = [`user: ${START}`, `${AUTHOR}: ${FINAL_TEXT}`, 'user: And what time is it there?', `${AUTHOR}: ${FINAL_TEXT}`].join(
      '\n\n',
    )
    const prompt = promptOf(simulatorRequests()[1]!)
    expect(prompt).toContain(`${expected}`)
    expect(prompt).not.toContain('get_weather')

    gemini.requests.length = 0
    agent.turns.length = 0
    simulatorSays('</finished>')
    await run({}, { criteria: {}, user_simulator_config: { includeFunctionCalls: true } })
    expect(promptOf(simulatorRequests()[0]!)).toContain(
      `user: ${START}\n\n${AUTHOR} called tool 'get_weather' with args: {"city":"Paris"}\n\nTool 'get_weather' returned: {"status":"success","report":"It is sunny and 21C in Paris."}`,
    )
  })

  it("ends on ADK's default turn limit: 20 messages, the starting prompt included", async () => {
    simulatorSays('Tell me more about Paris.')
    const verdict = await run({})
    expect(agent.turns).toHaveLength(20)
    expect(simulatorRequests()).toHaveLength(19)
    expect(verdict.runs[0]!.invocations).toBe(20)
  })

  it('ends on a configured limit (camelCase or snake_case) and sends the model the configured name and configuration', async () => {
    simulatorSays('Tell me more about Paris.')
    await run({}, {
      criteria: {},
      user_simulator_config: {
        type: 'llm_backed',
        maxAllowedInvocations: 3,
        model: 'sim-model',
        model_configuration: { temperature: 0.3 },
      },
    })
    expect(agent.turns).toHaveLength(3)
    expect(simulatorRequests().map((r) => r.model)).toEqual(['sim-model', 'sim-model'])
    expect(simulatorRequests()[0]!.body.generationConfig).toEqual({ temperature: 0.3 })

    agent.turns.length = 0
    await run({}, { criteria: {}, user_simulator_config: { max_allowed_invocations: 1 } })
    expect(sentTexts()).toEqual([START])
  })

  it('-1 means no limit: the conversation goes past 20 until the stop signal', async () => {
    simulatorSays(...Array.from({ length: 23 }, (_, i) => `Question ${i + 2} about Paris?`), 'ok </finished>')
    await run({}, { criteria: {}, user_simulator_config: { max_allowed_invocations: -1 } })
    expect(agent.turns).toHaveLength(24)
    expect(sentTexts().at(-1)).toBe('Question 24 about Paris?')
  })

  it("a built-in persona id gives the model that persona's description and instructions, the stop signal filled in", async () => {
    simulatorSays('</finished>')
    await run({ user_persona: 'NOVICE' })
    const prompt = promptOf(simulatorRequests()[0]!)
    expect(prompt).toContain(BUILT_IN_PERSONA_DEFINITIONS.NOVICE!.description)
    expect(prompt).toContain('If the agent says something wrong or senseless, end the conversation with </finished>.')
    expect(prompt).not.toContain('{{')
    expect(prompt).toContain(PLAN)
  })

  it('a persona object is used as given; an unknown persona id or a bad config refuses the run, naming the case', async () => {
    simulatorSays('</finished>')
    const persona = {
      id: 'grumpy',
      description: 'A grumpy customer in a hurry.',
      behaviors: [{
        name: 'Terse',
        description: 'Short answers.',
        behavior_instructions: ['Use five words at most, then {{ stop_signal }}.'],
        violation_rubrics: ['More than five words.'],
      }],
    }
    await run({ user_persona: persona })
    const prompt = promptOf(simulatorRequests()[0]!)
    expect(prompt).toContain('A grumpy customer in a hurry.')
    expect(prompt).toContain('## Terse\nShort answers.')
    expect(prompt).toContain('Use five words at most, then </finished>.')

    await expect(run({ user_persona: 'PIRATE' })).rejects.toThrow(
      /sim_set: eval case 'sim': .*user_persona 'PIRATE' is not a built-in persona \(EXPERT, NOVICE, EVALUATOR\)/,
    )
    await expect(run({}, { criteria: {}, user_simulator_config: { max_allowed_invocations: 'many' } })).rejects.toThrow(
      /user_simulator_config: .*max_allowed_invocations/,
    )
  })

  it('custom_instructions get every placeholder filled; one missing, or Jinja statements, refuse the run', async () => {
    simulatorSays('Time?', '</finished>')
    const template =
      'PLAN=[{{ conversation_plan }}] STOP=[{{stop_signal}}] WHO=[{{ persona.id }}|{{ persona.description }}] HISTORY=[{{ conversation_history }}]'
    await run({ user_persona: 'EXPERT' }, { criteria: {}, user_simulator_config: { custom_instructions: `${template} {{ persona }}` } })
    const prompt = promptOf(simulatorRequests()[0]!)
    const expert = BUILT_IN_PERSONA_DEFINITIONS.EXPERT!
    expect(
      prompt.startsWith(
        `PLAN=[${PLAN}] STOP=[</finished>] WHO=[EXPERT|${expert.description}] HISTORY=[user: ${START}\n\n${AUTHOR}: ${FINAL_TEXT}] ${expert.description}\n\n## `,
      ),
    ).toBe(true)

    await expect(
      run({}, { criteria: {}, user_simulator_config: { custom_instructions: 'Plan: {{ conversation_plan }} {{ conversation_history }}' } }),
    ).rejects.toThrow(
      /custom_instructions: it must use \{\{ stop_signal \}\}/,
    )
    const noPersona = 'Plan: {{ conversation_plan }} {{ conversation_history }} {{ stop_signal }}'
    await expect(run({ user_persona: 'EXPERT' }, { criteria: {}, user_simulator_config: { custom_instructions: noPersona } })).rejects
      .toThrow(
        /the scenario has a persona\): it must use \{\{ persona \}\}/,
      )
    await expect(run({}, { criteria: {}, user_simulator_config: { custom_instructions: `${template} {% if x %}y{% endif %}` } })).rejects
      .toThrow(/Jinja statements/)
  })

  it("a failed model call ends the case run NOT_EVALUATED with the model's error; the run goes on", async () => {
    gemini.handle(() => apiError(400, 'API key not valid'))
    const verdict = await run({})
    expect(agent.turns).toHaveLength(1)
    expect(verdict.status).toBe('NOT_EVALUATED')
    expect(verdict.runs[0]!.reason).toMatch(/^user simulator, message 2: judge call failed \(400\): .*API key not valid/)
  })

  it('without a model, scenario cases are NOT_EVALUATED with the reason and the agent is not called', async () => {
    const report = await runEvalSets([{ evalSet: scenarioSet({}), evalConfig: { criteria: {} } }], {
      agent: { url: agent.url, app: 'weather_agent' },
    })
    if (!report.ok) throw new Error(report.error)
    expect(report.sets[0]!.cases[0]!.reason).toMatch(/the user simulator needs a model and none is configured: set GEMINI_API_KEY/)
    expect(agent.sessions).toHaveLength(0)
  })

  it("POST /v1/runs simulates too: the deployment's judge model (from the same environment) is the simulator", async () => {
    simulatorSays('And what time is it there?', '</finished>')
    const setup = depsFromEnv({ GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url, AGENT_URL: agent.url }, {
      store: memorySessionStore(),
    })
    if (!setup.ok) throw new Error(setup.error)
    const app = createApp(setup.deps)
    const started = await app.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ eval_set: scenarioSet({}), eval_config: { criteria: {} }, app_name: 'weather_agent' }),
    })
    expect(started.status).toBe(202)
    const { run_id } = (await started.json()) as { run_id: string }
    const text = await (await app.request(`/v1/runs/${run_id}/results`)).text()
    expect(text).toContain('"invocation_index":1')
    expect(sentTexts()).toEqual([START, 'And what time is it there?'])
  })
})

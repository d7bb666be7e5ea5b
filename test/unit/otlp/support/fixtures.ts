/**
 * Test helpers over test/fixtures/otlp: read a fixture's spans and logs, and the invocations ADK's
 * `_convert_events_to_eval_invocations` builds for the scenario's turns from an ADK session.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS } from '../../../../src/otlp/index.ts'
import { EPOCH_MS, SYSTEM_INSTRUCTION, TOOL_DECLARATION, TURNS } from '../../../fixtures/otlp/scenario.ts'

export const FIXTURE_DIR = join(import.meta.dirname, '../../../fixtures/otlp')
export const BOUNDS = { maxJsonDepth: DEFAULT_OTLP_LIMITS.maxJsonDepth, maxStringLength: DEFAULT_OTLP_LIMITS.maxStringLength }

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8')
}

/** A fixture's spans and logs; a fixture with an issue fails the test that reads it. */
export function loadFixture(name: string) {
  const decoded = decodeOtlpFile(fixtureText(name), DEFAULT_OTLP_LIMITS)
  if (decoded.issues.length > 0) throw new Error(`${name}: ${JSON.stringify(decoded.issues)}`)
  return decoded
}

/**
 * What ADK builds for turn `turn` from the session's events: the user message, the final text,
 * and in between the call event and the tool results event (ADK's invocation_events).
 */
export function expectedInvocation(turn: number, invocationId: string, toolDeclarations: unknown[] | undefined) {
  const t = TURNS[turn]!
  return {
    invocation_id: invocationId,
    user_content: { role: 'user', parts: [{ text: t.user }] },
    final_response: { role: 'model', parts: [{ text: t.final }] },
    intermediate_data: {
      invocation_events: [
        {
          author: 'weather_agent',
          content: {
            role: 'model',
            parts: t.calls.map((c) => ({ function_call: { id: c.id, name: 'get_weather', args: { city: c.city } } })),
          },
        },
        {
          author: 'weather_agent',
          content: {
            role: 'user',
            parts: t.calls.map((c) => ({ function_response: { id: c.id, name: 'get_weather', response: c.response } })),
          },
        },
      ],
    },
    creation_timestamp: (EPOCH_MS + t.at) / 1000,
    rubrics: undefined,
    app_details: {
      agent_details: {
        weather_agent: { name: 'weather_agent', instructions: SYSTEM_INSTRUCTION, tool_declarations: toolDeclarations ?? [] },
      },
    },
  }
}

export const SNAKE_TOOLS = [{ function_declarations: [TOOL_DECLARATION] }]
export const CAMEL_TOOLS = [{ functionDeclarations: [TOOL_DECLARATION] }]

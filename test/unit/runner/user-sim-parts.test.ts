/**
 * The small parts under user simulation: ADK's "is_valid" label parser, the placeholder template
 * subset, persona resolution and the simulator's config reader.
 * Covers: src/runner/user-sim-config.ts, src/core/personas.ts, src/core/prompt-template.ts.
 */
import { describe, expect, it } from 'vitest'
import { isValidScore } from '../../../src/core/criteria/per-turn-user-simulator-quality/is-valid-label.ts'
import { resolvePersona } from '../../../src/core/personas.ts'
import { MAX_TEMPLATE_CHARS, renderTemplate, templateNames } from '../../../src/core/prompt-template.ts'
import { readUserSimulatorConfig } from '../../../src/runner/user-sim-config.ts'

describe('"is_valid" labels, read as ADK reads them', () => {
  it.each([
    ['{"is_valid": true}', 1],
    ['{"is_valid": True}', 1],
    ['{"is_valid": "VALID"}', 1],
    ['{"is_valid": ["valid"]}', 1],
    // ADK strips the letter s from both ends (a raw-string slip): "valids" reads as valid.
    ['{"is_valid": "valids"}', 1],
    ['{"is_valid": false,\n"criteria": []}', 0],
    ['{"is_valid": "almost"}', 0],
    ['{"is_valid": "partially_valid"}', 0],
    ['{"is_valid": "maybe"}', null],
    ['{"is_valid": true', null], // no terminator after the value
    ['{"valid": true}', null],
  ])('%s -> %s', (text, score) => {
    expect(isValidScore(text)).toBe(score)
  })
})

describe('templates', () => {
  it('fills {{ name }} and {{ name.field }}, unknown names as empty text, values never rendered again', () => {
    expect(renderTemplate('[{{a}}|{{ p.id }}|{{ nope }}|{{ p.nope.deeper }}]', { a: '{{ a }}', p: { id: 'X', toString: () => 'P' } })).toBe(
      '[{{ a }}|X||]',
    )
    expect(renderTemplate('{{ p }}', { p: { id: 'X', toString: () => 'the persona' } })).toBe('the persona')
  })

  it('names what a template uses; refuses statements, comments and oversized templates', () => {
    expect(templateNames('{{ stop_signal }} {{persona.id}} {{ persona }}')).toEqual({ ok: true, names: ['stop_signal', 'persona'] })
    expect(templateNames('{# note #}{{ x }}')).toMatchObject({ ok: false, error: expect.stringContaining("'{#' at character 0") })
    expect(templateNames('x'.repeat(MAX_TEMPLATE_CHARS + 1))).toMatchObject({
      ok: false,
      error: expect.stringContaining(String(MAX_TEMPLATE_CHARS)),
    })
  })
})

describe('personas and config', () => {
  it('resolves built-in ids only (not inherited names), passes objects through', () => {
    expect(resolvePersona('EXPERT')).toMatchObject({ ok: true, persona: { id: 'EXPERT' } })
    expect(resolvePersona('toString')).toMatchObject({ ok: false })
    const own = { id: 'me', description: 'd', behaviors: [] }
    expect(resolvePersona(own)).toEqual({ ok: true, persona: own })
    expect(resolvePersona(undefined)).toEqual({ ok: true })
  })

  it("reads ADK's defaults, both casings, and says why a config cannot be used", () => {
    expect(readUserSimulatorConfig(undefined)).toEqual({
      ok: true,
      config: {
        model: 'gemini-2.5-flash',
        modelConfiguration: { thinking_config: { include_thoughts: true, thinking_budget: 10240 } },
        maxAllowedInvocations: 20,
        includeFunctionCalls: false,
      },
    })
    expect(readUserSimulatorConfig({ userSimulatorConfig: { maxAllowedInvocations: -1, someNewField: 1 } })).toMatchObject({
      ok: true,
      config: { maxAllowedInvocations: -1 },
    })
    expect(readUserSimulatorConfig({ user_simulator_config: { type: 'llm_audio' } })).toMatchObject({
      ok: false,
      unsupported: expect.stringContaining("'llm_audio'"),
    })
    expect(readUserSimulatorConfig({ user_simulator_config: { max_allowed_invocations: 2.5 } })).toMatchObject({
      ok: false,
      invalid: expect.stringContaining('max_allowed_invocations'),
    })
  })
})

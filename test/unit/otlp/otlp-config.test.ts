/**
 * EVALSTREAM_OTLP_CONFIG and the receiver's variables: apps matched by name, then `default`, then
 * EVALSTREAM_CONFIG; every mistake stops the start with a message naming the variable and the JSON path.
 * Covers: src/config/otlp.ts.
 */
import { describe, expect, it } from 'vitest'
import { otlpSettingsFromEnv } from '../../../src/config/otlp.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/limits.ts'

const CONFIG = { criteria: { tool_trajectory_avg_score: 1 } }
const DEPLOYMENT = { criteria: { response_match_score: 0.8 } }
const read = (env: Record<string, string>, readFile?: (p: string) => string) =>
  otlpSettingsFromEnv(env, DEFAULT_LIMITS, DEPLOYMENT, readFile)

describe('OTLP settings', () => {
  it('picks an app by name, then the default, then the deployment config', () => {
    const apps = JSON.stringify({
      apps: { weather_agent: { eval_config: CONFIG, eval_case: { eval_id: 'x', conversation: [] } } },
      default: { eval_config: { criteria: { safety_v1: 0.8 } } },
    })
    const settings = read({ EVALSTREAM_OTLP_CONFIG: apps })
    if (!settings.ok) throw new Error(settings.error)
    expect(settings.value.appConfig('weather_agent')).toEqual({ eval_config: CONFIG, eval_case: { eval_id: 'x', conversation: [] } })
    expect(settings.value.appConfig('other')).toEqual({ eval_config: { criteria: { safety_v1: 0.8 } } })
    const bare = read({ EVALSTREAM_OTLP_CONFIG: JSON.stringify({ apps: { a: { eval_config: CONFIG } } }) })
    expect(bare.ok && bare.value.appConfig(undefined)).toEqual({ eval_config: DEPLOYMENT })
    expect(bare.ok && bare.notes).toEqual(['OTLP monitoring: 1 app(s) configured (EVALSTREAM_OTLP_CONFIG)'])
  })

  it('reads a file path, and says which file could not be read', () => {
    const settings = read({ EVALSTREAM_OTLP_CONFIG: '/etc/otlp.json' }, () => JSON.stringify({ apps: { a: { eval_config: CONFIG } } }))
    expect(settings.ok && settings.value.appConfig('a')).toEqual({ eval_config: CONFIG })
    const missing = read({ EVALSTREAM_OTLP_CONFIG: '/nope.json' }, () => {
      throw new Error('ENOENT')
    })
    expect(missing).toEqual({ ok: false, error: 'EVALSTREAM_OTLP_CONFIG: cannot read the file /nope.json' })
    expect(read({ EVALSTREAM_OTLP_CONFIG: '/list.json' }, () => '[]')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/must be a JSON object/),
    })
    expect(read({ EVALSTREAM_OTLP_CONFIG: '/x.json' })).toEqual({
      ok: false,
      error: 'EVALSTREAM_OTLP_CONFIG must be inline JSON here (no file system)',
    })
  })

  it.each([
    ['{oops', /EVALSTREAM_OTLP_CONFIG: it is not valid JSON/],
    ['{"app": {}}', /unknown key 'app' \(expected "apps" and "default"\)/],
    ['{"apps": []}', /\$\.apps must be an object/],
    ['{"apps": {"a": 1}}', /\$\.apps\["a"\] must be an object/],
    ['{"apps": {"a": {"config": {}}}}', /\$\.apps\["a"\]: unknown key 'config'/],
    ['{"apps": {"a": {"eval_config": {"criteria": "x"}}}}', /\$\.apps\["a"\]\.eval_config: .*\$\.criteria/],
    ['{"default": {"eval_case": "x"}}', /\$\.default\.eval_case must be an ADK EvalCase object/],
  ])('refuses %s', (raw, message) => {
    const settings = read({ EVALSTREAM_OTLP_CONFIG: raw })
    expect(settings.ok).toBe(false)
    if (!settings.ok) expect(settings.error).toMatch(message)
  })

  it('reads the conversation idle time and the OTLP limits, refusing what is not a whole number', () => {
    const settings = read({ EVALSTREAM_OTLP_CONVERSATION_IDLE_MS: '60_000', EVALSTREAM_OTLP_TRACE_GRACE_MS: '2000' })
    expect(settings.ok && [settings.value.conversationIdleMs, settings.value.assembler.graceMs]).toEqual([60_000, 2000])
    expect(read({ EVALSTREAM_OTLP_CONVERSATION_IDLE_MS: '1e3' })).toEqual({
      ok: false,
      error: "EVALSTREAM_OTLP_CONVERSATION_IDLE_MS must be a whole number >= 1, not '1e3'",
    })
    expect(read({ EVALSTREAM_OTLP_MAX_OPEN_TRACES: '0' }).ok).toBe(false)
  })
})

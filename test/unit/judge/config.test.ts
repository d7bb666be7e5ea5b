import { describe, expect, it } from 'vitest'
import { judgeConfigFromEnv } from '../../../src/config/judge-env.ts'
import { describeJudgeConfig, JUDGE_NOT_CONFIGURED } from '../../../src/judge/config.ts'

describe('judgeConfigFromEnv', () => {
  it.each([
    ['nothing set', {}, null],
    ['blank values count as unset', { GEMINI_API_KEY: '  ' }, null],
    ['GEMINI_API_KEY', { GEMINI_API_KEY: 'g' }, { gemini: { kind: 'gemini-api', apiKey: 'g' } }],
    ['GOOGLE_API_KEY', { GOOGLE_API_KEY: 'G' }, { gemini: { kind: 'gemini-api', apiKey: 'G' } }],
    ['GEMINI_API_KEY wins over GOOGLE_API_KEY', { GEMINI_API_KEY: 'g', GOOGLE_API_KEY: 'G' }, {
      gemini: { kind: 'gemini-api', apiKey: 'g' },
    }],
    ['a project alone is not enough', { GOOGLE_CLOUD_PROJECT: 'p' }, null],
    [
      'project + location -> Vertex, also for safety',
      { GOOGLE_CLOUD_PROJECT: 'p', GOOGLE_CLOUD_LOCATION: 'us-central1' },
      { gemini: { kind: 'vertex', project: 'p', location: 'us-central1' }, vertexSafety: { project: 'p', location: 'us-central1' } },
    ],
    [
      'an API key keeps Gemini API unless GOOGLE_GENAI_USE_VERTEXAI; Vertex still rates safety',
      { GEMINI_API_KEY: 'g', GOOGLE_CLOUD_PROJECT: 'p', GOOGLE_CLOUD_LOCATION: 'l' },
      { gemini: { kind: 'gemini-api', apiKey: 'g' }, vertexSafety: { project: 'p', location: 'l' } },
    ],
    [
      'GOOGLE_GENAI_USE_VERTEXAI=true picks Vertex over the key',
      { GEMINI_API_KEY: 'g', GOOGLE_CLOUD_PROJECT: 'p', GOOGLE_CLOUD_LOCATION: 'l', GOOGLE_GENAI_USE_VERTEXAI: 'True' },
      { gemini: { kind: 'vertex', project: 'p', location: 'l' }, vertexSafety: { project: 'p', location: 'l' } },
    ],
    [
      'base URLs and the access token',
      { GEMINI_API_KEY: 'g', GEMINI_BASE_URL: 'http://127.0.0.1:9', GOOGLE_CLOUD_ACCESS_TOKEN: 't' },
      { gemini: { kind: 'gemini-api', apiKey: 'g' }, baseUrl: 'http://127.0.0.1:9', accessToken: 't' },
    ],
  ])('%s', (_, env, expected) => {
    expect(judgeConfigFromEnv(env as Record<string, string>)).toEqual(expected)
  })

  it('explains how to configure a judge, and describes one without its secrets', () => {
    for (const name of ['GEMINI_API_KEY', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GEMINI_BASE_URL']) {
      expect(JUDGE_NOT_CONFIGURED).toContain(name)
    }
    const line = describeJudgeConfig(judgeConfigFromEnv({ GEMINI_API_KEY: 'secret-key', GOOGLE_CLOUD_ACCESS_TOKEN: 'tok' })!)
    expect(line).toContain('Gemini API')
    expect(line).not.toContain('secret-key')
    expect(line).not.toContain('tok')
  })
})

describe('toSdkConfig', async () => {
  const { toSdkConfig } = await import('../../../src/judge/model-config.ts')
  it('camel-cases config keys but not the keys of a JSON schema, and drops per-call fields', () => {
    const schema = { type: 'object', properties: { is_valid: { type: 'string' } } }
    expect(
      toSdkConfig({
        max_output_tokens: 10,
        thinking_config: { thinking_budget: 0 },
        response_json_schema: schema,
        http_options: { timeout: 1 },
        candidateCount: 3,
      }),
    ).toEqual({ maxOutputTokens: 10, thinkingConfig: { thinkingBudget: 0 }, responseJsonSchema: schema })
  })
})

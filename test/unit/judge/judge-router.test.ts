/**
 * Where judge requests go. routeFor as a table: every configuration (Vertex with credentials,
 * without, or absent; a Gemini backend or not; chat providers or not; a Workers AI binding or not;
 * EVALSTREAM_VERTEX_METRICS_JUDGE) against every kind of request (safety, the Vertex-only metrics,
 * text judges with a judge_model of each provider form). The expected cells come from the rules
 * as docs/judges.md states them, quoted beside each, not from the router's code. Then the routed
 * call itself: the model a prefixed Gemini name asks for, and requests that must reach no server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Assessment } from '../../../src/core/criterion.ts'
import { judgeFromEnv } from '../../../src/config/judge-from-env.ts'
import { createJudgeRouter, type Route, routeFor, type RoutingConfig } from '../../../src/judge/judge-router.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

/**
 * docs/judges.md's judge_model forms: who answers each, the model that service is asked for, and a
 * variable that configures it (named in the reason when it is not configured). "Only the first `/`
 * separates the provider"; "Provider names ignore case, and `_` equals `-`".
 */
const TEXT_FORMS = [
  { judgeModel: 'gemini-2.5-flash', answeredBy: 'gemini', model: 'gemini-2.5-flash', set: 'GEMINI_API_KEY' },
  { judgeModel: 'gemini/gemini-2.5-flash', answeredBy: 'gemini', model: 'gemini-2.5-flash', set: 'GEMINI_API_KEY' },
  { judgeModel: 'vertex_ai/gemini-2.5-flash', answeredBy: 'gemini', model: 'gemini-2.5-flash', set: 'GEMINI_API_KEY' },
  { judgeModel: 'openai/gpt-4.1-mini', answeredBy: 'openai', model: 'gpt-4.1-mini', set: 'EVALSTREAM_JUDGE_OPENAI_BASE_URL' },
  { judgeModel: 'OpenAI/gpt-4.1-mini', answeredBy: 'openai', model: 'gpt-4.1-mini', set: 'EVALSTREAM_JUDGE_OPENAI_BASE_URL' },
  {
    judgeModel: 'workers-ai/@cf/meta/llama-3.1-8b-instruct',
    answeredBy: 'workers-ai',
    model: '@cf/meta/llama-3.1-8b-instruct',
    set: 'EVALSTREAM_JUDGE_WORKERS_AI_BASE_URL',
  },
  {
    judgeModel: 'Workers_AI/@cf/meta/llama-3.1-8b-instruct',
    answeredBy: 'workers-ai',
    model: '@cf/meta/llama-3.1-8b-instruct',
    set: 'EVALSTREAM_JUDGE_WORKERS_AI_BASE_URL',
  },
  { judgeModel: 'vllm/Qwen/Qwen3-8B', answeredBy: 'vllm', model: 'Qwen/Qwen3-8B', set: 'EVALSTREAM_JUDGE_VLLM_BASE_URL' },
] as const
type TextForm = (typeof TEXT_FORMS)[number]

/** The chat providers a setup with chat providers has: OpenAI and Cloudflare's endpoint for Workers AI (no vLLM). */
const CHAT_PROVIDERS = new Set(['openai', 'workers-ai'])

const SAFETY: Assessment = { kind: 'safety', prompt: 'q', response: 'a' }
const COHERENCE: Assessment = { kind: 'coherence', prompt: 'q', response: 'a', reference: 'r' }
const CONVERSATION: Assessment = { kind: 'conversation', metric: 'multi_turn_task_success_v1', conversation: { agents: {}, turns: [] } }

type Kind = 'text' | 'safety' | 'coherence' | 'conversation'
const ASSESSMENTS: Record<Exclude<Kind, 'text'>, Assessment> = { safety: SAFETY, coherence: COHERENCE, conversation: CONVERSATION }
/** Every text form as a plain text judge, and each assessment with a Gemini name, a chat name and the binding's name. */
const REQUESTS: { kind: Kind; form: TextForm }[] = [
  ...TEXT_FORMS.map((form) => ({ kind: 'text' as const, form })),
  ...(['safety', 'coherence', 'conversation'] as const).flatMap((kind) =>
    [TEXT_FORMS[0], TEXT_FORMS[3], TEXT_FORMS[5]].map((form) => ({ kind, form }))
  ),
]

type Setup = {
  vertex: 'absent' | 'with credentials' | 'without credentials'
  gemini: boolean
  chat: boolean
  binding: boolean
  vertexMetrics: 'vertex' | 'evalstream'
}
const SETUPS: Setup[] = (['absent', 'with credentials', 'without credentials'] as const).flatMap((vertex) =>
  [false, true].flatMap((gemini) =>
    [false, true].flatMap((chat) =>
      [false, true].flatMap((binding) =>
        (['vertex', 'evalstream'] as const).map((vertexMetrics) => ({ vertex, gemini, chat, binding, vertexMetrics }))
      )
    )
  )
)

function routingConfig(setup: Setup): RoutingConfig {
  return {
    ...(setup.vertex === 'absent' ? {} : { vertex: { credentials: setup.vertex === 'with credentials' } }),
    vertexMetrics: setup.vertexMetrics,
    gemini: setup.gemini,
    chatProviders: setup.chat ? CHAT_PROVIDERS : new Set(),
    workersAiBinding: setup.binding,
  }
}

type Cell = { target: Route['target']; model?: string; provider?: string; reason?: unknown }
const notJudged = (naming: string): Cell => ({ target: 'unavailable', reason: expect.stringContaining(naming) })

/** A text judge, by the docs' table of forms. */
function documentedText(setup: Setup, form: TextForm): Cell {
  // "`gemini-2.5-flash` (no `/`), `gemini/...`, `vertex_ai/...`": Gemini; "a Gemini name without Gemini
  // settings, is answered `NOT_EVALUATED` with a reason naming the variable to set".
  if (form.answeredBy === 'gemini') return setup.gemini ? { target: 'gemini', model: form.model } : notJudged(form.set)
  // "`workers-ai/...`: on a Worker with an `[ai]` binding named `AI`: the binding; elsewhere Cloudflare's
  // OpenAI-compatible endpoint".
  if (form.answeredBy === 'workers-ai' && setup.binding) return { target: 'workers-ai', model: form.model }
  // Every other provider speaks chat completions; "A request whose provider is not configured ... is
  // answered `NOT_EVALUATED` with a reason naming the variable to set; it never reaches a server."
  if (setup.chat && CHAT_PROVIDERS.has(form.answeredBy)) return { target: 'chat', provider: form.answeredBy, model: form.model }
  return notJudged(form.set)
}

/** What docs/judges.md says answers a request of `kind` whose judge_model is `form`. */
function documented(setup: Setup, kind: Kind, form: TextForm): Cell {
  // "`safety_v1` goes to Vertex's evaluation service whenever Vertex is configured, whatever its
  // `judge_model`"; "With a project and location but none of these credentials, `safety_v1` is
  // `NOT_EVALUATED` naming the ones to set".
  if (kind === 'safety' && setup.vertex === 'with credentials') return { target: 'vertex-eval' }
  if (kind === 'safety' && setup.vertex === 'without credentials') return notJudged('GOOGLE_SERVICE_ACCOUNT_JSON')
  // "`response_evaluation_score` and the three `multi_turn_*_v1` metrics are computed by Vertex AI's
  // evaluation service"; "Without Vertex, [they] are `NOT_EVALUATED` with the reason, unless
  // `EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream`: then evalstream's own prompts go to each criterion's
  // `judge_model`"; without credentials they "are judged as without Vertex".
  if (kind === 'coherence' || kind === 'conversation') {
    if (setup.vertex === 'with credentials') return { target: 'vertex-eval' }
    if (setup.vertexMetrics === 'vertex') return notJudged('EVALSTREAM_VERTEX_METRICS_JUDGE=evalstream')
  }
  // "`safety_v1` without Vertex uses this project's safety rubric on its `judge_model`": a text judge.
  return documentedText(setup, form)
}

function cell(route: Route): Cell {
  const { via: _via, ...rest } = route as Route & { via?: string }
  return rest
}

const label = (s: Setup) =>
  [
    `Vertex ${s.vertex}`,
    s.gemini ? 'Gemini' : 'no Gemini',
    s.chat ? 'chat providers' : 'no chat provider',
    s.binding ? 'AI binding' : 'no binding',
  ]
    .join(', ') + `, EVALSTREAM_VERTEX_METRICS_JUDGE=${s.vertexMetrics}`

describe('routeFor, every configuration x every kind of request', () => {
  it(`covers ${SETUPS.length} configurations x ${REQUESTS.length} requests`, () => {
    expect([SETUPS.length, REQUESTS.length]).toEqual([48, 17])
  })

  it.each(SETUPS.map((s) => [label(s), s] as const))('%s', (_, setup) => {
    const config = routingConfig(setup)
    const key = (r: (typeof REQUESTS)[number]) => `${r.kind} ${r.form.judgeModel}`
    const actual = Object.fromEntries(REQUESTS.map((r) => {
      const assessment = r.kind === 'text' ? {} : { assessment: ASSESSMENTS[r.kind] }
      return [key(r), cell(routeFor({ model: r.form.judgeModel, ...assessment }, config))]
    }))
    const expected = Object.fromEntries(REQUESTS.map((r) => [key(r), documented(setup, r.kind, r.form)]))
    expect(actual).toEqual(expected)
  })
})

describe('the routed call', () => {
  let stub: GeminiStub
  beforeAll(async () => {
    stub = await startGeminiStub()
  })
  afterAll(() => stub.close())

  it('asks Gemini for the model after a gemini/ or vertex_ai/ prefix', async () => {
    stub.handle(() => ({ candidates: ['judged'] }))
    const judge = createJudgeRouter({ google: { gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: stub.url } })
    for (const model of ['gemini/gemini-2.5-flash', 'vertex_ai/gemini-2.5-flash']) {
      expect(await judge.answer({ id: model, model, prompt: 'p', samples: 1 }, {})).toMatchObject({
        via: 'gemini',
        samples: [{ text: 'judged' }],
      })
    }
    expect(stub.requests.map((r) => r.model)).toEqual(['gemini-2.5-flash', 'gemini-2.5-flash'])
  })

  it('a deployment with Gemini alone: a provider/model name is NOT_EVALUATED naming the variable, and reaches no server', async () => {
    const before = stub.requests.length
    const built = judgeFromEnv({ GEMINI_API_KEY: 'k', GEMINI_BASE_URL: stub.url })
    if (!built.ok || !built.judge) throw new Error('expected a judge')
    const answer = await built.judge.answer({ id: 'o', model: 'openai/gpt-4.1-mini', prompt: 'p', samples: 2 }, {})
    expect(answer.samples).toEqual([
      { error: expect.stringContaining('set EVALSTREAM_JUDGE_OPENAI_BASE_URL') },
      { error: expect.stringContaining('set EVALSTREAM_JUDGE_OPENAI_BASE_URL') },
    ])
    expect(stub.requests.length).toBe(before)
  })

  it('Vertex without credentials: safety_v1 names them under the service it would have used, and reaches no server', async () => {
    const before = stub.requests.length
    const built = judgeFromEnv({
      GEMINI_API_KEY: 'k',
      GEMINI_BASE_URL: stub.url,
      GOOGLE_CLOUD_PROJECT: 'p',
      GOOGLE_CLOUD_LOCATION: 'us-central1',
    })
    if (!built.ok || !built.judge) throw new Error('expected a judge')
    const answer = await built.judge.answer({ id: 's', model: 'gemini-2.5-flash', prompt: 'p', samples: 1, assessment: SAFETY }, {})
    expect(answer).toEqual({ id: 's', via: 'vertex-safety', samples: [{ error: expect.stringContaining('GOOGLE_SERVICE_ACCOUNT_JSON') }] })
    expect(stub.requests.length).toBe(before)
  })
})

/**
 * Run by deno-judges.test.ts under Deno: the deployment's judge from env (an OpenAI-compatible
 * provider and Vertex with a service account), one chat request and one conversation assessment.
 * Prints the answers as JSON on the last line.
 */
import { judgeFromEnv } from '../../../../src/config/judge-from-env.ts'

// Typed locally: tsc has no Deno types, and this file only ever runs under Deno.
const deno = (globalThis as unknown as { Deno: { args: string[] } }).Deno
const [chatUrl, vertexUrl, serviceAccountJson] = deno.args as [string, string, string]
const built = judgeFromEnv({
  OPENAI_API_KEY: 'sk-deno',
  OPENAI_BASE_URL: chatUrl,
  GEMINI_API_KEY: 'unused',
  GOOGLE_CLOUD_PROJECT: 'proj',
  GOOGLE_CLOUD_LOCATION: 'us-central1',
  GOOGLE_SERVICE_ACCOUNT_JSON: serviceAccountJson,
  VERTEX_EVAL_BASE_URL: vertexUrl,
})
if (!built.ok || !built.judge) throw new Error(built.ok ? 'no judge' : built.error)
const chat = await built.judge.answer({ id: 'chat', model: 'openai/gpt-4.1-mini', prompt: 'judge', samples: 3 }, {})
const conversation = {
  agents: {},
  turns: [{
    turn_id: 't1',
    user: { role: 'user', parts: [{ text: 'hi' }] },
    events: [],
    final: { role: 'model', parts: [{ text: 'hello' }] },
  }],
}
const vertex = await built.judge.answer(
  {
    id: 'conv',
    model: 'gemini-2.5-flash',
    prompt: 'p',
    samples: 1,
    assessment: { kind: 'conversation', metric: 'multi_turn_task_success_v1', conversation },
  },
  {},
)
const strip = ({ usage: _u, ...rest }: Record<string, unknown>) => rest
console.log(JSON.stringify({ chat: strip(chat), vertex: strip(vertex) }))

/**
 * Judges on any model and Vertex's evaluation service under Deno (workerd: worker-judges.test.ts;
 * Node: test/unit/judge): an OpenAI-compatible server answering n = 3 in one request, and
 * evaluateInstances with a token from a service account JWT signed by Deno's WebCrypto.
 * Covers: src/judge/judge-router.ts, src/judge/vertex-eval.ts, src/judge/google-credentials.ts.
 */
import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChatStub, startChatStub } from '../../unit/judge/chat-stub.ts'
import { startVertexStub, testSigningKey, type VertexStub } from '../../unit/judge/vertex-stub.ts'

const EMAIL = 'judge@proj.iam.gserviceaccount.com'
let chat: ChatStub
let vertex: VertexStub
let serviceAccountJson: string

beforeAll(async () => {
  const keys = await testSigningKey()
  chat = await startChatStub()
  vertex = await startVertexStub(keys.publicKey, EMAIL)
  serviceAccountJson = JSON.stringify({
    client_email: EMAIL,
    private_key: keys.pem,
    token_uri: `${vertex.url}/token`,
  })
})
afterAll(async () => {
  await chat?.close()
  await vertex?.close()
})

function runDeno(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'node_modules/.bin/deno',
      [
        'run',
        '--allow-net',
        '--allow-env',
        '--allow-read',
        'test/runtimes/judge/deno/judges-under-deno.ts',
        chat.url,
        vertex.url,
        serviceAccountJson,
      ],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    )
  )
}

describe('judges under Deno', () => {
  it('an OpenAI-compatible judge and Vertex evaluateInstances with a WebCrypto-signed service account', async () => {
    chat.handle((r) => ({ choices: Array.from({ length: r.body.n ?? 1 }, (_, i) => `answer ${i}`) }))
    vertex.answer(() => ({ metricResults: [{ score: 0.5, explanation: 'half' }] }))
    const out = JSON.parse((await runDeno()).trim().split('\n').at(-1) as string)
    expect(out.chat).toEqual({ id: 'chat', via: 'openai', samples: [{ text: 'answer 0' }, { text: 'answer 1' }, { text: 'answer 2' }] })
    expect(out.vertex).toEqual({
      id: 'conv',
      via: 'vertex-eval',
      samples: [{ score: 0.5, rubric_scores: [{ rubric_id: 'explanation', rationale: 'half' }] }],
    })
    expect(chat.requests.map((r) => [r.body.n, r.headers.authorization])).toEqual([[3, 'Bearer sk-deno']])
    expect([vertex.tokenExchanges, vertex.calls.map((c) => c.problems)]).toEqual([1, [[]]])
  }, 150_000)
})

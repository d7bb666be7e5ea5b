/**
 * Judge state is released when a hosted session ends or is aborted: the executor's per-session map
 * does not grow with ended sessions. Sessions are hosted as the server hosts them (HostedSession,
 * engine factory built like src/config/setup.ts), judged by the real SDK against the loopback stub.
 * Covers: src/judge/executor.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { createResultLog, memoryResultStorage } from '../../../src/session/result-log.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { type EngineFactory, HostedSession, NO_JOURNAL } from '../../../src/session/session.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { decodeAll } from '../../../src/ingest/index.ts'
import { type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'
import { CONFIG, HANG, hangOnMarker, stubWiring } from './judged-sessions.ts'

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
  hangOnMarker(stub)
})
afterAll(() => stub?.close())

const evalCase = (final: string) => ({
  eval_id: 'c',
  conversation: [{ user_content: { role: 'user', parts: [{ text: 'q' }] }, final_response: { role: 'model', parts: [{ text: final }] } }],
})
const events = decodeAll(
  'json',
  JSON.stringify([
    { invocationId: 'i', author: 'user', content: { role: 'user', parts: [{ text: 'q' }] } },
    { invocationId: 'i', author: 'agent', content: { role: 'model', parts: [{ text: 'a' }] } },
  ]),
).events

describe('judge state released at session end', () => {
  const wiring = () => stubWiring(stub, {})
  // The same composition as src/config/setup.ts's engine factory.
  const factoryFor = (w: ReturnType<typeof wiring>): EngineFactory => (options) => {
    const { release, ...judging } = w.value.judging(options.spec.session_id)
    const created = createSessionEngine({ ...options, ...judging })
    return created.ok && release ? { ...created, release } : created
  }

  async function open(createEngine: EngineFactory, id: string, final = 'a') {
    const opened = await HostedSession.open({
      spec: { session_id: id, eval_config: CONFIG, eval_case: evalCase(final) },
      log: createResultLog(memoryResultStorage()),
      journal: NO_JOURNAL,
      createEngine,
    })
    if (!opened.ok) throw new Error(opened.problem.detail)
    for (const e of events) opened.session.push(e)
    opened.session.completeInvocation()
    return opened.session
  }

  it('ended sessions leave nothing behind in the executor', async () => {
    const w = wiring()
    const createEngine = factoryFor(w)
    for (let i = 0; i < 50; i++) {
      const session = await open(createEngine, `ended-${i}`)
      const result = await session.end()
      expect(result).toMatchObject({ final_eval_status: 1 })
      expect(w.value.executor?.trackedSessions()).toBe(0)
    }
    expect(w.value.executor?.stats().answers).toBe(50)
  })

  it('an aborted session (deleted, evicted) releases its state too, its hung call included', async () => {
    const w = wiring()
    const session = await open(factoryFor(w), 'aborted', `${HANG} a`)
    const before = stub.requests.length
    while (stub.requests.length === before) await new Promise((r) => setImmediate(r))
    expect(w.value.executor?.trackedSessions()).toBe(1)
    session.abort('session deleted')
    expect(w.value.executor?.trackedSessions()).toBe(0)
    const result = await session.end()
    expect(result).toMatchObject({ final_eval_status: 3 })
    expect(w.value.executor?.trackedSessions()).toBe(0)
  })

  it("the server's engine factory (depsFromEnv) hands the host a release when sessions are judged", () => {
    const spec = { session_id: 's', eval_config: CONFIG, eval_case: evalCase('a') }
    const judged = depsFromEnv({ GEMINI_API_KEY: 'k', GEMINI_BASE_URL: stub.url }, { store: memorySessionStore() })
    const unjudged = depsFromEnv({ GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' }, { store: memorySessionStore() })
    if (!judged.ok || !unjudged.ok) throw new Error('setup failed')
    const withJudge = judged.deps.createEngine({ spec, emit: () => {} })
    const withoutJudge = unjudged.deps.createEngine({ spec, emit: () => {} })
    expect(withJudge.ok && typeof withJudge.release).toBe('function')
    expect(withoutJudge.ok && withoutJudge.release).toBeUndefined()
  })
})

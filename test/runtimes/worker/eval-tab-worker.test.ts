/**
 * The Eval tab routes on Workers (real workerd through Miniflare, proxy mode against the loopback
 * agent): an app's eval sets and results live in the EvalSets object `evalsets/<tenant>/<app>`, a
 * run happens inside it, and everything is still there after workerd restarts on the same
 * storage. A deployment from before that class kept them in the SESSIONS object of the same name:
 * once the EVAL_SETS binding is there, its object carries them over, once.
 * Covers: worker/eval-sets-route.ts, worker/eval-sets-object.ts, src/http/dev-eval/sqlite-eval-set-store.ts, worker/session-object.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorker } from '../../support/runtimes.ts'
import { type SessionAgent, startSessionAgent } from '../../support/session-agent.ts'

const APP = 'weather_agent'
let agent: SessionAgent
let persist: string
beforeAll(async () => {
  agent = await startSessionAgent()
  persist = mkdtempSync(join(tmpdir(), 'evalstream-evalsets-do-'))
})
afterAll(async () => {
  await agent?.close()
  rmSync(persist, { recursive: true, force: true })
})

describe('Eval tab on Workers', () => {
  it('keeps eval sets and run results in the app object, across a restart', async () => {
    let worker = await startWorker({ AGENT_URL: agent.url }, persist)
    try {
      const at = (path: string) => `${worker.baseUrl}/dev/apps/${APP}${path}`
      const post = (path: string, body?: unknown) =>
        fetch(at(path), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      expect(await (await fetch(at('/eval_sets'))).json()).toEqual([])
      expect((await post('/eval-sets', { eval_set: { eval_set_id: 'edge', eval_cases: [] } })).status).toBe(200)

      const session = (await (await fetch(`${worker.baseUrl}/apps/${APP}/users/user/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })).json()) as { id: string }
      const turn = await fetch(`${worker.baseUrl}/run_sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          appName: APP,
          userId: 'user',
          sessionId: session.id,
          newMessage: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        }),
      })
      await turn.text()
      const added = await post('/eval_sets/edge/add_session', { evalId: 'paris', sessionId: session.id, userId: 'user' })
      expect([added.status, await added.text()]).toEqual([200, 'null'])
      const run = (await (await post('/eval_sets/edge/run_eval', {
        evalIds: [],
        evalMetrics: [{ metricName: 'tool_trajectory_avg_score', threshold: 1 }],
      })).json()) as any[]
      expect(run.map((r) => [r.evalId, r.finalEvalStatus])).toEqual([['paris', 1]])
    } finally {
      await worker.stop()
    }

    worker = await startWorker({ AGENT_URL: agent.url }, persist)
    try {
      const at = (path: string) => `${worker.baseUrl}/dev/apps/${APP}${path}`
      expect(await (await fetch(at('/eval_sets'))).json()).toEqual(['edge'])
      expect(await (await fetch(at('/eval_sets/edge/evals'))).json()).toEqual(['paris'])
      const ids = (await (await fetch(at('/eval_results'))).json()) as string[]
      expect(ids).toHaveLength(1)
      const stored = (await (await fetch(at(`/eval_results/${encodeURIComponent(ids[0]!)}`))).json()) as any
      expect(stored.evalCaseResults[0]).toMatchObject({ evalId: 'paris', finalEvalStatus: 1 })
      // Another app's object is another object: nothing there.
      expect(await (await fetch(`${worker.baseUrl}/dev/apps/other_agent/eval_sets`)).json()).toEqual([])
    } finally {
      await worker.stop()
    }
  }, 120_000)

  it('carries over the eval sets a deployment kept in SESSIONS objects before it had EVAL_SETS, once', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'evalstream-evalsets-legacy-'))
    const list = async (base: string) => (await fetch(`${base}/dev/apps/${APP}/eval_sets`)).json()
    const create = (base: string, id: string) =>
      fetch(`${base}/dev/apps/${APP}/eval-sets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eval_set: { eval_set_id: id, eval_cases: [] } }),
      })
    try {
      let worker = await startWorker({ AGENT_URL: agent.url }, storage, { withoutEvalSets: true })
      try {
        expect((await create(worker.baseUrl, 'kept_before')).status).toBe(200)
        expect(await list(worker.baseUrl)).toEqual(['kept_before'])
      } finally {
        await worker.stop()
      }
      worker = await startWorker({ AGENT_URL: agent.url }, storage)
      try {
        expect(await list(worker.baseUrl)).toEqual(['kept_before'])
        expect((await create(worker.baseUrl, 'made_after')).status).toBe(200)
      } finally {
        await worker.stop()
      }
      // Once: a later start neither copies them again nor loses the new one.
      worker = await startWorker({ AGENT_URL: agent.url }, storage)
      try {
        expect(await list(worker.baseUrl)).toEqual(['kept_before', 'made_after'])
      } finally {
        await worker.stop()
      }
      // The new set went to the EvalSets object: the old SESSIONS object still holds only its own.
      worker = await startWorker({ AGENT_URL: agent.url }, storage, { withoutEvalSets: true })
      try {
        expect(await list(worker.baseUrl)).toEqual(['kept_before'])
      } finally {
        await worker.stop()
      }
    } finally {
      rmSync(storage, { recursive: true, force: true })
    }
  }, 180_000)
})

/**
 * The API suite against the Worker in workerd (Miniflare), sessions in SQLite Durable Objects.
 * Covers: worker/index.ts, worker/session-object.ts, worker/durable-store.ts, src/http/app.ts.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { apiSuite } from '../../support/api-suite.ts'
import { PROXY_TEST_ENV } from '../../support/api-suite-proxy.ts'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { type Running, startWorker } from '../../support/runtimes.ts'

describe('API on Workers (workerd via Miniflare)', () => {
  let agent: AgentStub
  let worker: Running
  beforeAll(async () => {
    agent = await startAgentStub()
    worker = await startWorker({ AGENT_URL: agent.url, ...PROXY_TEST_ENV })
  })
  afterAll(async () => {
    await worker?.stop()
    await agent?.close()
  })
  apiSuite(() => ({ baseUrl: worker.baseUrl, agentUrl: agent.url, agentRequests: () => agent.requests }))
})

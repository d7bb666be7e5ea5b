/**
 * The API suite against the Node app on a real socket.
 * Covers: src/http/app.ts, src/http/sessions-routes.ts, src/http/events-route.ts, src/http/results-stream.ts, src/http/proxy/proxy.ts.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { PROXY_TEST_ENV } from '../../support/api-suite-proxy.ts'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { type Running, startNode } from '../../support/runtimes.ts'
import { apiSuite } from '../../support/api-suite.ts'

describe('API on Node', () => {
  let agent: AgentStub
  let node: Running
  beforeAll(async () => {
    agent = await startAgentStub()
    node = await startNode({ AGENT_URL: agent.url, ...PROXY_TEST_ENV })
  })
  afterAll(async () => {
    await node?.stop()
    await agent?.close()
  })
  apiSuite(() => ({ baseUrl: node.baseUrl, agentUrl: agent.url, agentRequests: () => agent.requests }))
})

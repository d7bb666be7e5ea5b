/**
 * The API suite against the Deno adapter (Deno.serve), spawned as `npx deno run` on a free port.
 * Covers: src/adapter/deno/server.ts.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { apiSuite } from '../../support/api-suite.ts'
import { PROXY_TEST_ENV } from '../../support/api-suite-proxy.ts'
import { type AgentStub, startAgentStub } from '../../support/agent-stub.ts'
import { type Running, startDeno } from '../../support/runtimes.ts'

describe('API on Deno', () => {
  let agent: AgentStub
  let deno: Running
  beforeAll(async () => {
    agent = await startAgentStub()
    deno = await startDeno({ AGENT_URL: agent.url, ...PROXY_TEST_ENV })
  })
  afterAll(async () => {
    await deno?.stop()
    await agent?.close()
  })
  apiSuite(() => ({ baseUrl: deno.baseUrl, agentUrl: agent.url, agentRequests: () => agent.requests }))
})

/**
 * What the ADK web UI tests share: the REAL ADK JS server (`adk web`, which serves the stock UI)
 * with the scripted agent, evalstream in proxy mode in front of it on a free loopback port, and a
 * headless Chromium page. Skipped (undefined) when Chromium is missing.
 */
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createSessionEngine } from '../../src/engine/session-engine.ts'
import { memorySessionStore } from '../../src/session/store.ts'
import { createApp } from '../../src/http/app.ts'
import { type AdkAgent, startAdkAgent } from '../support/adk-agent.ts'
import { openPage, type Page } from './browser.ts'

/** The ADK app of test/e2e/agent that both tests chat with. */
export const ADK_WEB_APP = 'scripted_weather_agent'

export type AdkWebThroughProxy = {
  agent: AdkAgent
  /** evalstream's base URL (the UI is at `${url}/dev-ui/`). */
  url: string
  page: Page
  stop(): Promise<void>
}

/**
 * @example
 * const web = await startAdkWebThroughProxy()
 * await web.page.navigate(`${web.url}/dev-ui/?app=${ADK_WEB_APP}`)
 * await web.stop()
 */
export async function startAdkWebThroughProxy(): Promise<AdkWebThroughProxy> {
  const agent = await startAdkAgent({ apps: [ADK_WEB_APP], command: 'web' })
  const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o), agentUrl: agent.url })
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const page = await openPage(1400, 900)
  return {
    agent,
    url,
    page,
    async stop() {
      await page.close()
      await new Promise((resolve) => server.close(resolve))
      await agent.stop()
    },
  }
}

/**
 * The dashboard in a real headless Chromium (Debian's package) against the Node app on a real
 * socket with bearer-token auth: the page asks for the token, lists sessions, follows one live
 * (its trajectory turns red the moment a wrong tool call decides it, while the other criteria stay
 * pending; a judged criterion stays pending until the Gemini stub's vote, then shows its
 * rationale), shows agent-written markup as text, and shows the stats across sessions.
 * `npm run screenshots` writes its screenshots to docs/screenshots/dashboard-*.png (screenshots.ts).
 */
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFIG, DIVERGING_CASE, FINAL_TEXT, WEATHER_SSE } from '../support/weather-fixtures.ts'
import { type Host, indexedHost } from '../support/results-support.ts'
import { type GeminiStub, startGeminiStub } from '../support/gemini-stub.ts'
import { startStubAgent, type StubAgent } from '../support/stub-adk-server.ts'
import { chromiumMissing, openPage, type Page } from './browser.ts'
import { keepScreenshot } from './screenshots.ts'

const TOKEN = 'dashboard-e2e-token-0123456789abcdef'
const FRAMES = WEATHER_SSE.split('\n\n').filter((f) => f.startsWith('data: '))
const INVOCATION = JSON.parse(FRAMES[0]!.slice('data: '.length)).invocationId as string
/** Agent-written text that would run script if the page ever treated it as markup. */
const HOSTILE = '<img src=x onerror="window.__xss = 1">What is the weather in Paris?'
const LIVE = 'acme:live'
const JUDGED = 'final_response_match_v2'
/** The live session adds a judged criterion, answered by the Gemini stub when the test says so. */
const LIVE_CONFIG = { criteria: { ...CONFIG.criteria, [JUDGED]: { threshold: 0.5, judge_model_options: { num_samples: 3 } } } }
const verdict = (label: string, reasoning: string) => JSON.stringify({ reasoning, is_the_agent_response_valid: label })
/** Three samples in one call (candidateCount): two valid, one invalid; the vote keeps the first valid one. */
const VERDICTS = [
  verdict('valid', 'Same weather and time facts as the reference.'),
  verdict('invalid', 'The reference gives no temperature.'),
  verdict('valid', 'Sunny, 21C and 10:30 in both.'),
]
const missing = chromiumMissing()
/** An eval set run against the loopback ADK stand-in: one case passes, one the agent answers with a 500. */
const runCase = (id: string, text: string) => ({
  eval_id: id,
  conversation: [{
    invocation_id: `x-${id}`,
    user_content: { role: 'user', parts: [{ text }] },
    final_response: { role: 'model', parts: [{ text: FINAL_TEXT }] },
    intermediate_data: {
      tool_uses: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_time', args: { city: 'Paris' } }],
      intermediate_responses: [],
    },
  }],
})
const EVAL_SET = { eval_set_id: 'weather_set', eval_cases: [runCase('paris', 'Paris?'), runCase('broken', 'Paris? [500]')] }

const q = (selector: string) => `document.querySelector(${JSON.stringify(selector)})`
const criterion = (name: string) => q(`#scores [data-invocation="0"] [data-criterion="${name}"]`)

describe.skipIf(missing !== undefined)(`dashboard in headless Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let host: Host
  let gemini: GeminiStub
  let agent: StubAgent
  let releaseJudge: () => void = () => {}
  const judgeHeld = new Promise<void>((resolve) => (releaseJudge = resolve))
  let server: ReturnType<typeof serve>
  let page: Page
  let base: string
  const push = async (body: string) => {
    const res = await host.call('POST', `/v1/sessions/${encodeURIComponent(LIVE)}/events`, TOKEN, body, 'text/event-stream')
    expect(res.status, await res.text()).toBeLessThan(300)
  }
  const shot = async (name: string) => keepScreenshot(`dashboard-${name}.png`, await page.screenshot({ fullPage: true }))

  beforeAll(async () => {
    gemini = await startGeminiStub()
    gemini.handle(() => ({ candidates: VERDICTS, after: judgeHeld }))
    agent = await startStubAgent()
    host = indexedHost({
      EVALSTREAM_TOKENS: `acme:${TOKEN}`,
      GEMINI_API_KEY: 'test-key',
      GEMINI_BASE_URL: gemini.url,
      AGENT_URL: agent.url,
    })
    await host.run('acme:earlier-pass', { token: TOKEN })
    await host.run('acme:earlier-fail', { token: TOKEN, tools: ['get_time'] })
    await host.run('acme:other-app', { token: TOKEN, app: 'travel' })
    server = serve({ fetch: host.app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((r) => server.once('listening', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const created = await host.call(
      'POST',
      '/v1/sessions',
      TOKEN,
      JSON.stringify({ session_id: LIVE, eval_config: LIVE_CONFIG, eval_case: DIVERGING_CASE }),
    )
    expect(created.status).toBe(201)
    page = await openPage(1400, 1000)
  })
  afterAll(async () => {
    await page?.close()
    releaseJudge()
    await new Promise((r) => server?.close(r))
    await gemini?.close()
    await agent?.close()
  })

  it('asks for the token, then lists the sessions with their pass/fail', async () => {
    await page.navigate(`${base}/`)
    await page.waitFor(`!${q('#notice')}.hidden && ${q('#notice')}.textContent.includes('needs a bearer token')`, 'the token notice')
    await page.evaluate(`${q('#token')}.value = ${JSON.stringify(TOKEN)}; ${q('#token-form')}.requestSubmit()`)
    await page.waitFor(q('[data-session-id="acme:earlier-fail"][data-status="FAILED"]'), 'the failed session in the list')
    expect(await page.evaluate(`sessionStorage.getItem('evalstream.token')`)).toBe(TOKEN)
    expect(await page.evaluate(`${q('[data-session-id="acme:earlier-pass"]')}.dataset.status`)).toBe('PASSED')
    await page.waitFor(q('#stats [data-criterion="tool_trajectory_avg_score"]'), 'the stats card')
    expect(await page.evaluate<string>(`${q('#stats [data-criterion="tool_trajectory_avg_score"] .rate')}.textContent`)).toContain('67%')
    // The pass rate over time is drawn on a fixed 0-100% axis: the one bucket with results (2 of 3
    // passed) is two thirds of the axis high, although it is the tallest bar.
    const heights = await page.evaluate<{ bar: number; axis: number; bars: number }>(`(() => {
      const chart = ${q('#stats [data-criterion="tool_trajectory_avg_score"] .bars.time')}
      const filled = [...chart.querySelectorAll('span:not([data-empty])')]
      return { bar: filled[0].getBoundingClientRect().height, axis: chart.clientHeight, bars: filled.length }
    })()`)
    expect(heights.bars).toBe(1)
    expect(heights.bar / heights.axis).toBeCloseTo(2 / 3, 1)
    await page.waitFor(`${q('#tenant')}.textContent.includes('acme')`, 'the tenant')
    await shot('overview')
  })

  it('follows a session live: red the moment the trajectory fails, judged criterion pending until its vote, then its rationale', async () => {
    await page.evaluate(`location.hash = ${JSON.stringify(`#/session/${LIVE}`)}`)
    await page.waitFor(
      `${q('#scores')}.textContent.includes('no invocation yet') && ${q('#session-status')}.textContent.includes('live')`,
      'the empty live session',
    )
    const user = { invocationId: INVOCATION, author: 'user', content: { role: 'user', parts: [{ text: HOSTILE }] } }
    // The live push: the user's turn and the agent's first (wrong) tool call.
    await push(`data: ${JSON.stringify(user)}\n\n${FRAMES[0]}\n\n`)
    await page.waitFor(`${criterion('tool_trajectory_avg_score')}?.dataset.status === 'FAILED'`, 'the trajectory to turn red')
    expect(await page.evaluate(`${criterion('response_match_score')}.dataset.status`)).toBe('PENDING')
    expect(await page.evaluate<string>(`${criterion('tool_trajectory_avg_score')}.textContent`)).toContain('decided mid-invocation')
    await page.waitFor(`${q('#conversation')}.textContent.includes('get_weather')`, 'the tool call in the conversation')
    // The hostile text is shown as text: no element was made of it and nothing ran.
    expect(await page.evaluate<string>(`${q('#conversation')}.textContent`)).toContain(HOSTILE)
    expect(await page.evaluate(`document.querySelectorAll('#conversation img, #scores img').length`)).toBe(0)
    expect(await page.evaluate('window.__xss')).toBeUndefined()
    await shot('live')
    // A broken event is reported beside the session and changes no score.
    await push('data: {"author": 7\n\n')
    await page.waitFor(`${q('#session-status')}.textContent.includes('rejected event')`, 'the rejected event')

    expect(await page.evaluate(`${criterion(JUDGED)}.dataset.status`)).toBe('PENDING')

    // The rest of the turn completes the invocation: the response match is decided at once, the
    // judged criterion stays pending while its vote is held back.
    await push(`${FRAMES.slice(1).join('\n\n')}\n\n`)
    await page.waitFor(`${criterion('response_match_score')}?.dataset.status === 'PASSED'`, 'the response result')
    await gemini.waitForRequests(1)
    expect(await page.evaluate(`${criterion(JUDGED)}.dataset.status`)).toBe('PENDING')
    expect(await page.evaluate<string>(`${criterion(JUDGED)}.textContent`)).toContain('judging: waiting for the votes')
    await page.waitFor(`${q('#conversation')}.textContent.includes('the time is 10:30')`, 'the final answer in the conversation')
    await shot('judging')
    releaseJudge()
    await page.waitFor(`${criterion(JUDGED)}?.dataset.status === 'PASSED'`, 'the judged result')
    expect(await page.evaluate<string>(`${criterion(JUDGED)}.querySelector('.explain.judge .rationale').textContent`))
      .toContain('Same weather and time facts as the reference.')
    // Every sample's vote with its own reasoning, the kept one marked.
    const votes = await page.evaluate<Array<{ vote: string; chosen: boolean; text: string }>>(
      `[...${
        criterion(JUDGED)
      }.querySelectorAll('.votes li')].map((li) => ({ vote: li.dataset.vote, chosen: li.dataset.chosen === 'true', text: li.textContent }))`,
    )
    expect(votes.map((v) => [v.vote, v.chosen])).toEqual([['valid', true], ['invalid', false], ['valid', false]])
    expect(votes[1]!.text).toContain('The reference gives no temperature.')
    expect(await page.evaluate<string>(`${criterion(JUDGED)}.querySelector('.votes').textContent`)).toContain('2 valid, 1 invalid')
    // The failed trajectory (EXACT) once the invocation is complete: expected and actual calls side
    // by side, the first position that differs marked.
    const table = await page.evaluate<Array<{ cells: string[]; mark: string; divergence: boolean }>>(
      `[...${criterion('tool_trajectory_avg_score')}.querySelectorAll('.explain.trajectory tbody tr')].map((tr) => ({
        cells: [...tr.children].map((td) => td.textContent), mark: tr.dataset.mark, divergence: tr.dataset.divergence === 'true' }))`,
    )
    expect(table).toEqual([
      {
        cells: ['1. get_time({"city":"Paris"})', '1. get_weather({"city":"Paris"})', '≠ different call ← first divergence'],
        mark: 'mismatch',
        divergence: true,
      },
      { cells: ['—', '2. get_time({"city":"Paris"})', 'not expected'], mark: 'extra', divergence: false },
    ])
    expect((await host.call('POST', `/v1/sessions/${encodeURIComponent(LIVE)}/end`, TOKEN)).status).toBe(200)
    await page.waitFor(`${q('#session-status [data-status="FAILED"]')}`, 'the case result')
    await page.waitFor(q(`[data-session-id="${LIVE}"][data-status="FAILED"]`), 'the live session in the list')
    await shot('session')
  })

  it('shows a deleted session gone, with why, in the detail and the list alike', async () => {
    // Open while it is deleted: the stream's closing frame says why.
    await page.evaluate(`location.hash = '#/session/acme:earlier-pass'`)
    await page.waitFor(q('#session-status [data-status="PASSED"]'), 'the passed session')
    expect((await host.call('DELETE', '/v1/sessions/acme:earlier-pass', TOKEN)).status).toBe(204)
    await page.waitFor(q('#session-status [data-status="GONE"]'), 'the session to be gone')
    expect(await page.evaluate<string>(`${q('#session-status .gone')}.textContent`)).toContain('it was deleted')
    await page.waitFor(q('[data-session-id="acme:earlier-pass"][data-status="GONE"]'), 'the list to agree')
    expect(await page.evaluate<string>(`${q('[data-session-id="acme:earlier-pass"]')}.textContent`)).toContain('(was passed)')
    // Deleted while not shown: the list says so itself (the server marks it), then the detail agrees.
    expect((await host.call('DELETE', '/v1/sessions/acme:earlier-fail', TOKEN)).status).toBe(204)
    await page.waitFor(q('[data-session-id="acme:earlier-fail"][data-status="GONE"]'), 'the list to show it gone unopened')
    expect(await page.evaluate<string>(`${q('[data-session-id="acme:earlier-fail"]')}.textContent`)).toContain('(was failed)')
    await page.evaluate(`location.hash = '#/session/acme:earlier-fail'`)
    await page.waitFor(q('#session-status [data-status="GONE"]'), 'the deleted session to be gone')
    expect(await page.evaluate<string>(`${q('#session-status .gone')}.textContent`)).toContain('deleted')
    expect(await page.evaluate(`document.querySelectorAll('#session-status [data-status="OPEN"]').length`)).toBe(0)
    await page.waitFor(q('[data-session-id="acme:earlier-fail"][data-status="GONE"]'), 'the list to agree')
    // Deleted while its stream is live: the stream's closing frame says why, and that stays.
    const open = 'acme:open-then-deleted'
    expect((await host.call('POST', '/v1/sessions', TOKEN, JSON.stringify({ session_id: open, eval_config: CONFIG }))).status).toBe(201)
    await page.evaluate(`location.hash = ${JSON.stringify(`#/session/${open}`)}`)
    await page.waitFor(`${q('#session-status')}.textContent.includes('stream: live')`, 'the live stream')
    expect((await host.call('DELETE', `/v1/sessions/${open}`, TOKEN)).status).toBe(204)
    await page.waitFor(q('#session-status [data-status="GONE"]'), 'the live session to be gone')
    expect(await page.evaluate<string>(`${q('#session-status .gone')}.textContent`)).toBe(
      `session '${open}' was deleted (DELETE /v1/sessions/${open})`,
    )
  })

  it('lists eval-set runs with their cases, their status and why', async () => {
    const body = JSON.stringify({ run_id: 'nightly', eval_set: EVAL_SET, eval_config: CONFIG, app_name: 'weather_agent' })
    expect((await host.call('POST', '/v1/runs', TOKEN, body)).status).toBe(202)
    await page.waitFor(q('[data-run-id="nightly"][data-status="NOT_EVALUATED"]'), 'the finished run in the list')
    const cases = await page.evaluate<Array<{ id: string; status: string; text: string }>>(
      `[...${q('[data-run-id="nightly"]')}.querySelectorAll('.cases li')].map((li) => ({
        id: li.dataset.evalId, status: li.dataset.status, text: li.textContent }))`,
    )
    expect(cases.map((c) => [c.id, c.status]).sort()).toEqual([['broken', 'NOT_EVALUATED'], ['paris', 'PASSED']])
    expect(cases.find((c) => c.id === 'broken')!.text).toContain('500')
    expect(await page.evaluate<string>(`${q('[data-run-id="nightly"]')}.textContent`)).toContain('weather_agent · 2/2 case(s) done')
    await shot('runs')
  })

  it('filters the stats by app', async () => {
    await page.evaluate(`location.hash = ''; ${q('#filter-app')}.value = 'travel'; ${q('#filters')}.dispatchEvent(new Event('change'))`)
    await page.waitFor(
      `${q('#sessions')}.querySelectorAll('li[data-session-id]').length === 1 && ${q('[data-session-id="acme:other-app"]')} && ${
        q('#stats [data-criterion="tool_trajectory_avg_score"] .rate')
      }?.textContent.startsWith('100%')`,
      'the app filter',
    )
    // 100% fills the axis.
    expect(
      await page.evaluate(`(() => {
        const chart = ${q('#stats [data-criterion="tool_trajectory_avg_score"] .bars.time')}
        return chart.querySelector('span:not([data-empty])').getBoundingClientRect().height / chart.clientHeight
      })()`),
    ).toBeCloseTo(1, 1)
  })
})

/**
 * The stock ADK web UI (from @google/adk-devtools, served by the REAL ADK JS server with `adk web`)
 * in a real headless Chromium, chatting through evalstream in proxy mode. The UI turns every
 * `data:` line of /run_sse into a row whatever the event name, so evalstream's result frames, if
 * they were in the stream, would each show as an empty row. By default they are not: the chat
 * shows exactly the agent's events, and the run is scored all the same, its results on
 * /v1/sessions/{id}/results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse } from '../support/sse-client.ts'
import { chromiumMissing, type Page } from './browser.ts'
import { ADK_WEB_APP as APP, type AdkWebThroughProxy, startAdkWebThroughProxy } from './adk-web-through-proxy.ts'

/** The user id the ADK web UI sends. */
const UI_USER = 'user'
const QUESTION = 'Weather and time in Paris?'
const ANSWER = 'In Paris it is sunny, 21C, and the time is 10:30.'
const missing = chromiumMissing()

let web: AdkWebThroughProxy
let agent: AdkWebThroughProxy['agent']
let url: string
let page: Page
beforeAll(async () => {
  if (missing) return
  web = await startAdkWebThroughProxy()
  ;({ agent, url, page } = web)
}, 120_000)
afterAll(async () => {
  await web?.stop()
})

/** Each chat row's own content: its text without the event number and the avatar (an empty row has none). */
const ROW_CONTENTS = `[...document.querySelectorAll('app-event-row')].map((row) => {
  const copy = row.cloneNode(true)
  copy.querySelectorAll('.event-number-container, app-chat-avatar').forEach((e) => e.remove())
  return copy.textContent.replace(/\\s+/g, ' ').trim()
})`

describe.skipIf(missing !== undefined)(`the ADK web UI chatting through evalstream${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it("shows exactly the agent's rows, while the session is scored and its results are on /results", async () => {
    await page.navigate(`${url}/dev-ui/?app=${APP}`)
    await page.waitFor(`document.querySelector('textarea')`, 'the chat box')
    await page.evaluate(`document.querySelector('textarea').focus()`)
    await page.type(QUESTION)
    await page.evaluate(
      `[...document.querySelectorAll('button')].find((b) => b.offsetParent !== null && b.textContent.includes('send')).click()`,
    )
    // The UI shows a progress bar until its /run_sse stream has ended and every frame in it was read.
    await page.waitFor(
      `document.body.innerText.includes(${JSON.stringify(ANSWER)}) && !document.querySelector('mat-progress-bar')`,
      "the agent's answer, with the stream over",
    )
    const rows = await page.evaluate<string[]>(ROW_CONTENTS)

    // What the agent produced: the events of its ADK session (the user's turn first), read from the agent itself.
    const listed = (await (await fetch(`${agent.url}/apps/${APP}/users/${UI_USER}/sessions`)).json()) as { sessions: Array<{ id: string }> }
    const sessions = listed.sessions
    expect(sessions).toHaveLength(1)
    const id = sessions[0]!.id
    const adk = (await (await fetch(`${agent.url}/apps/${APP}/users/${UI_USER}/sessions/${id}`)).json()) as { events: unknown[] }
    expect(adk.events.length).toBeGreaterThanOrEqual(6)
    expect(rows).toHaveLength(adk.events.length)
    expect(rows.filter((content) => content === '')).toEqual([])
    expect(rows[0]).toContain(QUESTION)
    expect(rows.at(-1)).toContain(ANSWER)

    // Scored all the same: the session of the ADK id has the invocation, and its results are on /results.
    const snapshot = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as { invocations: unknown[] }
    expect(snapshot.invocations).toHaveLength(1)
    expect((await fetch(`${url}/v1/sessions/${id}/end`, { method: 'POST' })).status).toBe(200)
    const results = await readSse(await fetch(`${url}/v1/sessions/${id}/results`))
    const types = results.map((m) => m.event)
    expect(types[0]).toBe('invocation.started')
    expect(types.filter((t) => t === 'criterion.result').length).toBeGreaterThan(0)
    expect(types.at(-1)).toBe('case.result')
  }, 120_000)
})

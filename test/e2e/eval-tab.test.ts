/**
 * The stock ADK web UI (shipped by @google/adk-devtools, served by the REAL ADK JS server with
 * `adk web`) in a real headless Chromium, loaded through evalstream in proxy mode: everything the
 * page asks for passes through to the agent except the Eval tab's routes, which evalstream answers.
 * The ADK JS server alone answers those with 404, which hides the tab; through evalstream the tab
 * appears, a chat becomes an eval case, a run completes and its result shows in the tab.
 *
 * `npm run screenshots` writes its screenshots to docs/screenshots/eval-tab-*.png (screenshots.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumMissing, type Page } from './browser.ts'
import { ADK_WEB_APP as APP, type AdkWebThroughProxy, startAdkWebThroughProxy } from './adk-web-through-proxy.ts'
import { keepScreenshot } from './screenshots.ts'

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

/** The first visible element matching `selector` whose text contains `text`. */
const byText = (selector: string, text: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.offsetParent !== null && e.textContent.trim().includes(${
    JSON.stringify(text)
  }))`
const click = async (selector: string, text: string) => {
  await page.waitFor(byText(selector, text), `a visible ${selector} with '${text}'`)
  await page.evaluate(`${byText(selector, text)}.click()`)
}
const shoot = async (name: string) => {
  // Dialogs fade in: the picture is taken once every running CSS animation and transition is over.
  await page.evaluate(`Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))).then(() => true)`)
  // Icon fonts that are still loading draw nothing: wait until every font has loaded or failed (offline, the icons fall back to words).
  await page.evaluate(`document.fonts.ready.then(() => true)`)
  keepScreenshot(`eval-tab-${name}.png`, await page.screenshot())
}

describe.skipIf(missing !== undefined)(`the ADK web UI's Eval tab through evalstream${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('the ADK JS server alone has no eval routes (so the stock UI hides the tab)', async () => {
    const direct = await fetch(`${agent.url}/dev/apps/${APP}/eval_sets`)
    expect(direct.status).toBe(404)
    const proxied = await fetch(`${url}/dev/apps/${APP}/eval_sets`)
    expect(proxied.status).toBe(200)
  })

  it('shows the tab, turns a chat into an eval case, runs it and shows the result', async () => {
    await page.navigate(`${url}/dev-ui/?app=${APP}`)
    await page.waitFor(`document.querySelector('textarea')`, 'the chat box')
    await page.evaluate(`document.querySelector('textarea').focus()`)
    await page.type('Weather and time in Paris?')
    await click('button', 'send')
    await page.waitFor(`document.body.innerText.includes('In Paris it is sunny')`, "the agent's answer")

    await click('[role=tab]', 'Evals')
    await page.waitFor(byText('app-eval-tab', 'Create Evaluation Set'), 'the empty Eval tab')
    await shoot('1-tab')

    await click('app-eval-tab .info-create', 'Create Evaluation Set')
    await page.waitFor(`document.querySelector('mat-dialog-container input')?.value === 'eval_set_1'`, 'the new eval set dialog')
    await click('mat-dialog-container button', 'Create')
    await click('.eval-set-row', 'eval_set_1')
    await click('button', 'From Current Session')
    await page.waitFor(`document.querySelector('mat-dialog-container input')?.value`, 'the new eval case dialog')
    await click('mat-dialog-container button', 'Create')
    await page.waitFor(
      `!document.querySelector('mat-dialog-container') && ${byText('.eval-case-row', 'Weather_and_time_in_Paris')}`,
      'the eval case row',
    )
    await shoot('2-case')

    await click('button', 'Run All')
    await page.waitFor(byText('mat-dialog-container', 'Tool Trajectory'), 'the metrics dialog (from metrics-info)')
    await shoot('3-metrics')
    await click('mat-dialog-container button', 'Start')
    await page.waitFor(byText('app-eval-tab', '1 PASS'), 'the run result in the Eval tab', 60_000)
    await shoot('4-result')
    const tab = await page.evaluate<string>(`document.querySelector('app-eval-tab').innerText`)
    expect(tab).toContain('Weather_and_time_in_Paris')
    expect(tab).toMatch(/Tool Trajectory\s*:\s*1\.00/)
    // Both chosen metrics passed for the one invocation: 2 of 2 (informational metrics are not sent to the tab).
    expect(tab).toMatch(/Weather_and_time_in_Paris\s*2\/2/)

    // What the tab shows is what evalstream stored.
    const ids = (await (await fetch(`${url}/dev/apps/${APP}/eval_results`)).json()) as string[]
    expect(ids).toHaveLength(1)
    const stored = (await (await fetch(`${url}/dev/apps/${APP}/eval_results/${encodeURIComponent(ids[0]!)}`)).json()) as any
    expect(stored.evalSetId).toBe('eval_set_1')
    expect(stored.evalCaseResults.map((c: any) => [c.evalId, c.finalEvalStatus])).toEqual([['Weather_and_time_in_Paris', 1]])
  }, 120_000)
})

/**
 * Headless Chromium driven over the Chrome DevTools Protocol with Node's own WebSocket: no browser
 * automation package, the browser Debian ships (/usr/bin/chromium). One page per browser.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where Debian's `chromium` package puts the browser; EVALSTREAM_CHROMIUM overrides it. */
export const CHROMIUM_PATH = process.env.EVALSTREAM_CHROMIUM ?? '/usr/bin/chromium'
/** How long the browser may take to print its DevTools address. */
const LAUNCH_TIMEOUT_MS = 30_000

export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (run \`npm run setup:e2e\` as root, or apt-get install chromium)`
}

export type Page = {
  /** Runs an expression in the page; returns its value (awaited when it is a promise). */
  evaluate<T = unknown>(expression: string): Promise<T>
  navigate(url: string): Promise<void>
  /** Polls `expression` until it is truthy (no fixed sleeps: the condition is the wait). */
  waitFor(expression: string, what: string, timeoutMs?: number): Promise<void>
  screenshot(): Promise<Buffer>
  close(): Promise<void>
}

/** @example const page = await launchPage({ width: 1400, height: 1000 }) */
export async function launchPage(viewport: { width: number; height: number }): Promise<Page> {
  const profile = mkdtempSync(join(tmpdir(), 'evalstream-chromium-'))
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--remote-debugging-port=0',
    `--user-data-dir=${profile}`,
    'about:blank',
  ]
  const browser = spawn(CHROMIUM_PATH, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  const wsUrl = await devtoolsUrl(browser)
  const ws = new WebSocket(wsUrl)
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = () => reject(new Error('cannot reach DevTools')))))
  let nextId = 0
  const pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>()
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data))
    const waiter = msg.id !== undefined ? pending.get(msg.id) : undefined
    if (!waiter) return
    pending.delete(msg.id)
    if (msg.error) waiter.reject(new Error(`CDP: ${msg.error.message}`))
    else waiter.resolve(msg.result)
  }
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve, reject })
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    })
  const { targetInfos } = await send('Target.getTargets')
  const target = targetInfos.find((t: any) => t.type === 'page')
  const { sessionId } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true })
  const page = (method: string, params: object = {}) => send(method, params, sessionId)
  await page('Page.enable')
  await page('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false })

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await page('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })
    if (r.exceptionDetails) throw new Error(`page threw: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`)
    return r.result.value as T
  }
  const waitFor = async (expression: string, what: string, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (await evaluate<boolean>(`Boolean(${expression})`)) return
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      // Wait for the page's next frame rather than a fixed time.
      await evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))')
    }
  }
  return {
    evaluate,
    waitFor,
    async navigate(url) {
      await page('Page.navigate', { url })
      await waitFor("document.readyState === 'complete'", `page ${url} to load`)
    },
    async screenshot() {
      const { data } = await page('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true })
      return Buffer.from(data, 'base64')
    },
    async close() {
      ws.close()
      browser.kill('SIGTERM')
      await new Promise((r) => (browser.exitCode !== null ? r(null) : browser.once('exit', r)))
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

function devtoolsUrl(browser: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(
      () => fail(new Error(`Chromium printed no DevTools address in ${LAUNCH_TIMEOUT_MS} ms: ${seen.slice(-500)}`)),
      LAUNCH_TIMEOUT_MS,
    )
    const fail = (e: Error) => {
      clearTimeout(timer)
      browser.kill('SIGKILL')
      reject(e)
    }
    browser.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    browser.once('exit', (code) => fail(new Error(`Chromium exited (${code}) before listening: ${seen.slice(-500)}`)))
  })
}

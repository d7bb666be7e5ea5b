/**
 * The tests' one browser driver: just enough of the Chrome DevTools Protocol to drive a real
 * headless Chromium (the dashboard, the stock ADK web UI), plain CDP over Node's global WebSocket,
 * no browser-automation package. Chromium runs in its own process group with a throwaway profile;
 * `close()` kills the group and removes it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where the Debian package puts Chromium (test/support/setup-e2e.js installs it when missing). */
export const CHROMIUM_PATH = process.env.EVALSTREAM_CHROMIUM ?? '/usr/bin/chromium'
const START_TIMEOUT_MS = 120_000

export type Page = {
  /** Runs an expression in the page (promises awaited) and returns its JSON value. */
  evaluate<T = unknown>(expression: string): Promise<T>
  /**
   * Resolves once `condition` (an expression) is truthy in the page, re-checked on every DOM change
   * and every frame (for state outside the DOM: storage, readyState); no fixed sleeps.
   */
  waitFor(condition: string, what: string, timeoutMs?: number): Promise<void>
  /** Types text into the focused element, as a user would. */
  type(text: string): Promise<void>
  navigate(url: string): Promise<void>
  /** A PNG of the viewport, or with `fullPage` of the whole page beyond it. */
  screenshot(options?: { fullPage?: boolean }): Promise<Buffer>
  close(): Promise<void>
}

/** Whether a Chromium binary is there (tests skip with this reason when not). */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (run npm run setup:e2e as root, or set EVALSTREAM_CHROMIUM)`
}

/**
 * @example
 * const page = await openPage(1280, 900)
 * await page.navigate('http://127.0.0.1:8787/dev-ui/')
 * await page.close()
 */
export async function openPage(width: number, height: number): Promise<Page> {
  const profile = mkdtempSync(join(tmpdir(), 'evalstream-chromium-'))
  const child = spawn(
    CHROMIUM_PATH,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  )
  const cleanup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
    rmSync(profile, { recursive: true, force: true })
  }
  try {
    const port = await devtoolsPort(child)
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<
      { type: string; webSocketDebuggerUrl: string }
    >
    const target = targets.find((t) => t.type === 'page')
    if (!target) throw new Error('Chromium opened no page')
    const cdp = await connect(target.webSocketDebuggerUrl)
    await cdp.send('Page.enable')
    await cdp.send('Runtime.enable')
    await cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false })
    const evaluate = async <T>(expression: string): Promise<T> => {
      const r = (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })) as {
        result: { value?: T }
        exceptionDetails?: { exception?: { description?: string }; text: string }
      }
      if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`)
      return r.result.value as T
    }
    return {
      evaluate,
      async waitFor(condition, what, timeoutMs = 30_000) {
        const ok = await evaluate<boolean>(`new Promise((resolve) => {
          const check = () => { try { return !!(${condition}) } catch { return false } }
          if (check()) return resolve(true)
          let frame = 0
          const done = (ok) => { observer.disconnect(); cancelAnimationFrame(frame); clearTimeout(timer); resolve(ok) }
          const onFrame = () => { if (check()) done(true); else frame = requestAnimationFrame(onFrame) }
          const observer = new MutationObserver(() => { if (check()) done(true) })
          observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true })
          frame = requestAnimationFrame(onFrame)
          const timer = setTimeout(() => done(check()), ${timeoutMs})
        })`)
        if (!ok) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
      },
      type: async (text) => void (await cdp.send('Input.insertText', { text })),
      async navigate(url) {
        const loaded = cdp.once('Page.loadEventFired')
        await cdp.send('Page.navigate', { url })
        await loaded
      },
      async screenshot(options = {}) {
        const shot = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: options.fullPage === true })
        return Buffer.from((shot as { data: string }).data, 'base64')
      },
      async close() {
        cdp.close()
        cleanup()
      },
    }
  } catch (e) {
    cleanup()
    throw e
  }
}

/** Chromium prints `DevTools listening on ws://127.0.0.1:PORT/...` on stderr once it is ready. */
function devtoolsPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(
      () => reject(new Error(`Chromium did not start within ${START_TIMEOUT_MS} ms: ${seen.slice(-500)}`)),
      START_TIMEOUT_MS,
    )
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8')
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before it was ready: ${seen.slice(-500)}`)))
  })
}

type Cdp = { send(method: string, params?: object): Promise<unknown>; once(event: string): Promise<unknown>; close(): void }

async function connect(url: string): Promise<Cdp> {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true })
    socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true })
  })
  let nextId = 0
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  const waiters = new Map<string, Array<(params: unknown) => void>>()
  socket.addEventListener('message', (message) => {
    const data = JSON.parse(String(message.data)) as {
      id?: number
      result?: unknown
      error?: { message: string }
      method?: string
      params?: unknown
    }
    if (data.id !== undefined) {
      const p = pending.get(data.id)
      pending.delete(data.id)
      if (data.error) p?.reject(new Error(data.error.message))
      else p?.resolve(data.result)
    } else if (data.method) {
      for (const w of waiters.get(data.method)?.splice(0) ?? []) w(data.params)
    }
  })
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++nextId
        pending.set(id, { resolve, reject })
        socket.send(JSON.stringify({ id, method, params }))
      }),
    once: (event) => new Promise((resolve) => waiters.set(event, [...(waiters.get(event) ?? []), resolve])),
    close: () => socket.close(),
  }
}

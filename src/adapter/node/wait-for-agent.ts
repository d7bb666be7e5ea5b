/**
 * `evalstream run --wait S`: before the first case, wait until the agent accepts connections, so
 * `npm run example:agent & npx evalstream run ...` works pasted together. Any HTTP answer (even
 * 404) means it is listening; a refused or reset connection means not yet. It says what it
 * waits for and how long at most, then every WAIT_NOTE_EVERY_MS that it still waits.
 */

/**
 * Default wait for an agent on a loopback address (one started beside the command), in ms. It
 * covers the bundled example agent's first start, which installs its packages first (about a
 * minute, two on a busy machine).
 */
export const DEFAULT_LOOPBACK_WAIT_MS = 180_000
/** Pause between two connection attempts, in ms. */
export const WAIT_RETRY_MS = 250
/** While waiting, it says this often that it still waits, in ms. */
export const WAIT_NOTE_EVERY_MS = 30_000

export type WaitIo = {
  fetch: typeof fetch
  now: () => number
  sleep: (ms: number) => Promise<void>
  err: (text: string) => void
}

export type WaitOutcome = { ok: true; waitedMs: number } | { ok: false; waitedMs: number; cause: string }

/** Loopback agents are waited for by default; a remote one is expected to be up already. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e))
}

/**
 * @example
 * const waited = await waitForAgent('http://127.0.0.1:8000', 30_000, { fetch, now: Date.now, sleep, err })
 */
export async function waitForAgent(base: string, timeoutMs: number, io: WaitIo): Promise<WaitOutcome> {
  const started = io.now()
  const url = new URL('/list-apps', base)
  let told = false
  let lastNote = started
  // Bounded by attempts as well as by the clock, so a clock that stands still cannot loop forever.
  const maxAttempts = Math.ceil(timeoutMs / WAIT_RETRY_MS) + 1
  for (let attempt = 1;; attempt++) {
    const signal = AbortSignal.timeout(Math.max(1, Math.min(5_000, timeoutMs)))
    try {
      const response = await io.fetch(url, { signal })
      await response.body?.cancel()
      if (told) io.err(`evalstream: the agent at ${url.origin} is listening (after ${((io.now() - started) / 1000).toFixed(1)} s)\n`)
      return { ok: true, waitedMs: io.now() - started }
    } catch (e) {
      const waited = io.now() - started
      if (waited + WAIT_RETRY_MS > timeoutMs || attempt >= maxAttempts) return { ok: false, waitedMs: waited, cause: causeOf(e) }
      if (!told) {
        io.err(
          `evalstream: waiting for the agent at ${url.origin} to listen (${causeOf(e)}; up to ${
            Math.round(timeoutMs / 1000)
          } s, --wait 0 to not wait)\n`,
        )
        told = true
      } else if (io.now() - lastNote >= WAIT_NOTE_EVERY_MS) {
        lastNote = io.now()
        io.err(
          `evalstream: still waiting for the agent at ${url.origin} (${Math.round(waited / 1000)} s of ${
            Math.round(timeoutMs / 1000)
          } s)\n`,
        )
      }
      await io.sleep(WAIT_RETRY_MS)
    }
  }
}

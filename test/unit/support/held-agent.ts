/**
 * An agent `fetch` whose every call hangs until the test lets go: hung work without sleeps. Each
 * call is recorded; `calls(n)` resolves once n calls arrived, `releaseAll` fails every one still
 * hanging (so runs and requests finish and nothing is left behind).
 */
export type HeldAgent = {
  fetch: typeof fetch
  urls: string[]
  calls(n: number): Promise<void>
  releaseAll(): void
}

export function heldAgent(): HeldAgent {
  const urls: string[] = []
  const hanging = new Set<(reason: unknown) => void>()
  const waiters: { n: number; resolve: () => void }[] = []
  const wake = () => {
    for (const w of [...waiters]) if (urls.length >= w.n) waiters.splice(waiters.indexOf(w), 1), w.resolve()
  }
  const fetchHeld = ((input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((_, reject) => {
      urls.push(input instanceof Request ? input.url : String(input))
      const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined)
      const fail = (reason: unknown) => {
        hanging.delete(fail)
        reject(reason)
      }
      hanging.add(fail)
      signal?.addEventListener('abort', () => fail(signal.reason), { once: true })
      wake()
    })) as typeof fetch
  return {
    fetch: fetchHeld,
    urls,
    calls: (n) => new Promise<void>((resolve) => (waiters.push({ n, resolve }), wake())),
    releaseAll: () => {
      for (const fail of [...hanging]) fail(new Error('released by the test'))
    },
  }
}

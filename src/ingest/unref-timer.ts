/**
 * A background timer (a sweeper, a ticker) must never keep a process alive: `unref()` on Node,
 * `Deno.unrefTimer` on Deno; workerd has neither and needs neither (a request's lifetime bounds it).
 * Probing `globalThis` for Deno here, behind one function, keeps runtime globals out of the callers.
 */
export function unrefTimer(timer: ReturnType<typeof setInterval>): void {
  const t = timer as unknown as { unref?: () => void }
  if (typeof t.unref === 'function') return t.unref()
  const deno = (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno
  deno?.unrefTimer?.(timer as unknown as number)
}

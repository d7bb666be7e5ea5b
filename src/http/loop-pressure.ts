/**
 * The arithmetic behind a `LoopPressure` reading (src/http/admission.ts), apart from any clock or
 * runtime: the host feeds it what it sampled (when, and the loop's cumulative active time), and
 * asks it at any moment for the busy share over the last window. Pure, so tests drive it with the
 * numbers they choose.
 *
 * The busy share is the active time over the last `windowMs`, measured from the newest sample that
 * is at least a window old. Before a whole window has passed since the first sample, the missing
 * part counts as idle (the share is active time over a full window): a server that has just started
 * is never busy by that measure, however long its first turns take to compile their code.
 */

/** One sample: when it was taken (ms on the host's monotonic clock) and the loop's active ms so far. */
export type ActivitySample = { atMs: number; activeMs: number }

/** A ring of samples; `busyShare` reads the last window off it. */
export class LoopActivityWindow {
  readonly #samples: ActivitySample[] = []
  readonly #windowMs: number
  readonly #capacity: number

  /** @param sampleEveryMs how often the host samples; the ring keeps a little over one window of them. */
  constructor(windowMs: number, sampleEveryMs: number, first: ActivitySample) {
    if (!(windowMs > 0) || !(sampleEveryMs > 0)) throw new RangeError('window and sample interval must be > 0 ms')
    this.#windowMs = windowMs
    this.#capacity = Math.ceil(windowMs / sampleEveryMs) + 2
    this.#samples.push(first)
  }

  /** Records a sample; the oldest is dropped once the ring holds more than a window. */
  sample(s: ActivitySample): void {
    this.#samples.push(s)
    // Keep the newest sample that is a window old; drop what is older than it.
    while (this.#samples.length > this.#capacity) this.#samples.shift()
  }

  /** The share (0..1) of the last window the loop was active, as of `now`. */
  busyShare(now: ActivitySample): number {
    let base = this.#samples[0]!
    for (const s of this.#samples) {
      if (now.atMs - s.atMs >= this.#windowMs) base = s
      else break
    }
    const span = Math.max(this.#windowMs, now.atMs - base.atMs)
    const active = Math.max(0, now.activeMs - base.activeMs)
    return Math.min(1, active / span)
  }
}

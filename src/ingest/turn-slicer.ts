/**
 * Keeps one request's synchronous work in short slices: work is done in small units (one decoded
 * event scored, one step of a big JSON body), and once a slice has run `sliceMs` the request
 * gives the event loop back before the next unit. Other requests, timers and `/healthz` then wait
 * at most one slice plus one unit, whatever the size of the body.
 */

/** Synchronous work one request does before it gives the event loop back. */
export const MAX_TURN_SLICE_MS = 5

export type TurnSlicer = {
  /** A slice starts (after an await that gave the loop back, e.g. reading the next chunk). */
  begin(): void
  /** The slice is over for now (the request is about to await something). */
  end(): void
  /** After a unit of work: a promise to await when the slice has run long enough, else undefined. */
  check(): Promise<void> | undefined
  /** The longest slice so far, by the clock (for tests and measurements). */
  readonly longestMs: number
}

export type TurnSlicerOptions = {
  sliceMs?: number
  /** Milliseconds, any origin; a test injects one that counts work instead of time. */
  clock?: () => number
  /** Gives the loop back; by default `setImmediate` (timers and I/O run in between), `setTimeout(0)` where there is none. */
  yieldTurn?: () => Promise<void>
  /** Told the longest slice of each request when it is done (tests and measurements). */
  report?: (longestMs: number) => void
  /**
   * Units of work after which a slice ends whatever the clock says: on deployed Workers the clocks
   * move only across I/O, so a slice timed by them alone would never end. Default: no such bound.
   */
  maxUnits?: number
}

const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate
/**
 * Runs `run` in the next turn of the event loop: `setImmediate` (once per turn, after its I/O; no
 * 1 ms timer clamp), `setTimeout(0)` where there is none (workerd).
 */
export const nextTurn = (run: () => void): void => void (immediate ? immediate(run) : setTimeout(run, 0))
/** Gives the event loop back for one turn (`nextTurn`). */
export const nextMacrotask = (): Promise<void> => new Promise<void>(nextTurn)
const macrotask = nextMacrotask

/** @example const slicer = createTurnSlicer(); for (const unit of work) { unit(); await slicer.check() } */
export function createTurnSlicer(options: TurnSlicerOptions = {}): TurnSlicer {
  const sliceMs = options.sliceMs ?? MAX_TURN_SLICE_MS
  const clock = options.clock ?? (() => performance.now())
  const yieldTurn = options.yieldTurn ?? macrotask
  const maxUnits = options.maxUnits ?? Infinity
  let started = clock()
  let units = 0
  let longest = 0
  const end = () => {
    longest = Math.max(longest, clock() - started)
  }
  const begin = () => {
    started = clock()
    units = 0
  }
  return {
    begin,
    end,
    check() {
      if (++units < maxUnits && clock() - started < sliceMs) return undefined
      end()
      return yieldTurn().then(begin)
    },
    get longestMs() {
      return longest
    },
  }
}

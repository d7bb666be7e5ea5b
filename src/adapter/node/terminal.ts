/**
 * What the CLI does differently on a terminal: colours (off with NO_COLOR, https://no-color.org,
 * or TERM=dumb, and never in pipes, files or --json), and a notice while a long wait goes on, so
 * a slow judge is never silence.
 */

const STATUS_COLOURS: Record<string, string> = { PASSED: '32', FAILED: '31', NOT_EVALUATED: '33' }

/** Colours only on a terminal, and never when NO_COLOR is set to anything non-empty or TERM is dumb. */
export function useColor(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  return isTTY && !env.NO_COLOR && env.TERM !== 'dumb'
}

/** The verdict words of the table in colour: green PASSED, red FAILED, yellow NOT_EVALUATED. */
export function paintStatuses(text: string): string {
  return text.replace(/\b(PASSED|FAILED|NOT_EVALUATED)\b/g, (word) => `\x1b[${STATUS_COLOURS[word]}m${word}\x1b[39m`)
}

export type Waiting = {
  everyMs: number
  write(text: string): void
  message(elapsedMs: number): string
  /** Injected in tests; the real timer is unref'd so it never keeps the process alive. */
  setInterval?: (fn: () => void, ms: number) => { unref?(): void }
  clearInterval?: (timer: unknown) => void
}

/**
 * Resolves as `work` does, writing `message(elapsed)` every `everyMs` until then.
 * @example
 * await whileWaiting(runEval(input), { everyMs: 10_000, write: (t) => process.stderr.write(t), message: (ms) => `still judging after ${ms} ms\n` })
 */
export async function whileWaiting<T>(work: Promise<T>, waiting: Waiting): Promise<T> {
  const start = waiting.setInterval ?? setInterval
  const stop = waiting.clearInterval ?? ((t: unknown) => clearInterval(t as ReturnType<typeof setInterval>))
  let ticks = 0
  const timer = start(() => waiting.write(waiting.message(++ticks * waiting.everyMs)), waiting.everyMs)
  timer.unref?.()
  try {
    return await work
  } finally {
    stop(timer)
  }
}

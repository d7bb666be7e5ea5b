/**
 * What a person watching `evalstream run` sees while it works. On a terminal: one status line,
 * redrawn in place (cases and invocations done, failures so far, cases in flight), with a
 * permanent line above it for each case that did not pass. Elsewhere (CI logs, pipes): one plain
 * line per finished case, nothing redrawn. Runtime-neutral: it only calls `write`.
 */
import type { RunProgress } from './run-eval-set.ts'

export type ProgressDisplay = {
  /** Feed every progress event of the run. */
  update(event: RunProgress): void
  /** Clears the status line (terminal); call once when the run is over. */
  close(): void
}

/** Redraws of the status line closer together than this are skipped (the last one always shows), in ms. */
export const REDRAW_INTERVAL_MS = 100

/**
 * @example
 * const display = progressDisplay((s) => process.stderr.write(s), process.stderr.isTTY === true)
 * await runEvalSets(sets, { agent, onProgress: display.update }); display.close()
 */
export function progressDisplay(write: (text: string) => void, isTTY: boolean, now: () => number = Date.now): ProgressDisplay {
  let units = 0
  let invocationsTotal = 0
  let done = 0
  let invocations = 0
  let failed = 0
  let notEvaluated = 0
  let inFlight = 0
  let lastDraw = -Infinity
  let drawn = false
  const started = new Map<string, number>()

  const status = () =>
    `evalstream run: ${done}/${units} cases, ${invocations}/${invocationsTotal} invocations, ` +
    `${failed} failed, ${notEvaluated} not evaluated, ${inFlight} running`
  const draw = (force: boolean) => {
    if (!isTTY) return
    const t = now()
    if (!force && t - lastDraw < REDRAW_INTERVAL_MS) return
    lastDraw = t
    write(`\r\x1b[2K${status()}`)
    drawn = true
  }
  const line = (text: string) => {
    if (isTTY && drawn) write('\r\x1b[2K')
    write(`${text}\n`)
    if (isTTY) draw(true)
  }

  return {
    update(event) {
      if (event.type === 'run.started') {
        units = event.units
        invocationsTotal = event.invocations
        if (!isTTY) line(`evalstream run: ${units} case runs, ${invocationsTotal} invocations`)
        draw(true)
      } else if (event.type === 'case.started') {
        inFlight += 1
        started.set(key(event.unit), now())
        draw(false)
      } else if (event.type === 'invocation.done') {
        invocations += 1
        draw(false)
      } else if (event.type === 'case.done') {
        const { outcome } = event
        inFlight -= 1
        done += 1
        if (outcome.status === 'FAILED') failed += 1
        if (outcome.status === 'NOT_EVALUATED') notEvaluated += 1
        const ms = now() - (started.get(key(outcome)) ?? now())
        const run = units > 0 && outcome.run > 0 ? ` run ${outcome.run + 1}` : ''
        const name = `${outcome.evalSetId}/${outcome.evalId}${run}`
        const why = outcome.reason ? `: ${outcome.reason}` : ''
        const summary = `[${done}/${units}] ${outcome.status} ${name} (${outcome.invocations} invocations, ${
          (ms / 1000).toFixed(1)
        } s)${why}`
        // A terminal keeps the status line for passes and prints only what needs attention.
        if (!isTTY || outcome.status !== 'PASSED') line(summary)
        else draw(done === units)
      }
    },
    close() {
      if (isTTY && drawn) write(`\r\x1b[2K${status()}\n`)
      drawn = false
    },
  }
}

function key(unit: { evalSetId: string; evalId: string; run: number }): string {
  return `${unit.evalSetId}\u0000${unit.evalId}\u0000${unit.run}`
}

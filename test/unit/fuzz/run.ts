/**
 * The fuzz loop shared by the seeded test runs and bench/fuzz.ts: inputs from a fast-check
 * arbitrary, generated in seeded batches (so a run of 100,000 never holds them all), each checked
 * in turn; every failure is kept, grouped by a signature with numbers and ids taken out, with the
 * first input that produced it. A failing run says every distinct problem at once.
 */
import fc from 'fast-check'
import { errorText } from './route-driver.ts'

export type FailureGroup = { signature: string; count: number; example: string }
export type FuzzReport = { runs: number; failed: number; ms: number; groups: FailureGroup[] }
export type FuzzOptions = { seed: number; runs: number; batch?: number; onProgress?(done: number, failed: number): void }

/** Numbers, ids and quoted snippets vary between inputs of one problem; the signature drops them. */
export function signatureOf(failure: string): string {
  return failure
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 220)
}

/**
 * @example
 * const report = await fuzz(fc.string(), { seed: 1, runs: 1000 }, (s) => (s.length > 5 ? [] : []), (s) => s)
 * report.groups // []
 */
export async function fuzz<T>(
  arbitrary: fc.Arbitrary<T>,
  options: FuzzOptions,
  check: (input: T) => string[] | Promise<string[]>,
  describe: (input: T) => string,
): Promise<FuzzReport> {
  const batch = options.batch ?? 200
  const groups = new Map<string, FailureGroup>()
  const started = performance.now()
  let stray: string[] = []
  const onStray = (reason: unknown) => void stray.push(`unhandled rejection: ${errorText(reason)}`)
  process.on('unhandledRejection', onStray)
  // An error caught and only logged (Hono's streamSSE logs what breaks a stream) is a failure too.
  const consoleError = console.error
  console.error = (...args: unknown[]) =>
    void stray.push(`logged error: ${args.map((a) => (a instanceof Error ? errorText(a) : String(a))).join(' ').split('\n')[0]}`)
  let done = 0
  let failed = 0
  try {
    for (let b = 0; done < options.runs; b++) {
      const inputs = fc.sample(arbitrary, { seed: options.seed + b, numRuns: Math.min(batch, options.runs - done) })
      for (const input of inputs) {
        let failures: string[]
        try {
          failures = await check(input)
        } catch (error) {
          failures = [`check threw ${errorText(error)}`]
        }
        // A rejection nobody handled surfaces a tick later: give it that tick, then blame this input.
        await new Promise((resolve) => setImmediate(resolve))
        failures = [...failures, ...stray]
        stray = []
        done++
        if (failures.length > 0) failed++
        for (const failure of new Set(failures)) {
          const signature = signatureOf(failure)
          const group = groups.get(signature)
          if (group) group.count++
          else groups.set(signature, { signature, count: 1, example: `${failure}\n    input: ${describe(input).slice(0, 400)}` })
        }
      }
      options.onProgress?.(done, failed)
    }
  } finally {
    process.off('unhandledRejection', onStray)
    console.error = consoleError
  }
  return { runs: done, failed, ms: performance.now() - started, groups: [...groups.values()].sort((a, b) => b.count - a.count) }
}

/** The report as lines for a test failure message or the benchmark output. */
export function formatReport(name: string, report: FuzzReport): string {
  const head = `${name}: ${report.runs} inputs, ${report.failed} failed, ${report.groups.length} distinct problems, ${
    (report.ms / 1000).toFixed(1)
  } s`
  return [head, ...report.groups.map((g) => `  [${g.count}x] ${g.example}`)].join('\n')
}

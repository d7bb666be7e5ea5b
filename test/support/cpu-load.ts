/**
 * Background CPU load for test:repeat: one worker thread per core spinning on arithmetic, so the
 * suite runs on a machine as busy as a loaded CI runner. `stress` is not assumed to be installed.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

/** The spinning loop, run in each worker; it stops when the worker is terminated. */
const SPIN = `
let x = 0
for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 31 + i) % 1000003 }
`

export type CpuLoad = { threads: number; stop(): Promise<void> }

/** @example const load = startCpuLoad(); try { ... } finally { await load.stop() } */
export function startCpuLoad(threads = availableParallelism()): CpuLoad {
  const workers = Array.from({ length: threads }, () => new Worker(SPIN, { eval: true }))
  for (const w of workers) w.unref()
  return {
    threads,
    stop: async () => {
      await Promise.all(workers.map((w) => w.terminate()))
    },
  }
}

/**
 * Background CPU load for test:repeat: separate processes spinning on arithmetic, by default two per
 * core, so the suite runs on a machine busier than it has cores (a loaded CI runner, a laptop
 * building something else). Processes, not threads of the runner: the scheduler then shares the
 * cores between them and the suite's processes as it would with any other work. `stress` is not
 * assumed to be installed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'

/** The spinning loop each process runs until it is killed. */
const SPIN = 'let x = 0; for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 31 + i) % 1000003 }'

/** Busy processes per core by default. */
export const LOAD_PER_CORE = 2

export type CpuLoad = { processes: number; stop(): Promise<void> }

/** @example const load = startCpuLoad(); try { ... } finally { await load.stop() } */
export function startCpuLoad(processes = LOAD_PER_CORE * availableParallelism()): CpuLoad {
  const children: ChildProcess[] = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }))
  // A runner that dies without stop() must not leave spinners behind: each one exits with it.
  const killAll = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  }
  process.once('exit', killAll)
  return {
    processes,
    stop: async () => {
      process.off('exit', killAll)
      await Promise.all(children.map((c) =>
        c.exitCode !== null || c.signalCode !== null ? undefined : new Promise<void>((resolve) => {
          c.once('exit', () => resolve())
          c.kill('SIGKILL')
        })
      ))
    },
  }
}

/**
 * What the load benches read of a server process from outside it, on Linux (`/proc`): its
 * resident set, its CPU time, and its listening socket's accept queue. Each is null or undefined
 * where there is no `/proc` (the bench then reports n/a).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** A port free on loopback right now, for a server the bench is about to start. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** A process's resident set now and at its peak (Linux VmRSS / VmHWM), in MiB. */
export function rssMiB(pid: number): { now: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN)
    return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
  } catch {
    return undefined
  }
}

/** CPU time a process used so far, all threads (utime + stime in /proc/PID/stat), in seconds. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command's ')', in ticks.
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/**
 * What a thread of a Node server is, by its name (Linux `comm`, at most 15 characters): Node 24
 * names its main thread and a worker thread by the `name` it was started with (the sessions
 * database's and the results index's writers name theirs); V8's helpers (garbage collection,
 * compilation) and libuv's pool have names of their own.
 */
function threadKind(comm: string): string {
  if (comm === 'MainThread' || comm === 'node') return 'main'
  if (comm.startsWith('V8Worker') || comm.startsWith('V8 ')) return 'V8 helpers'
  if (comm.startsWith('libuv-worker')) return 'libuv pool'
  return comm
}

/**
 * CPU time each kind of thread of a process used so far (threadKind), in seconds; threads that
 * have exited are not in it (a server's are started once and live as long as it does).
 */
export function threadCpuSeconds(pid: number): Map<string, number> | null {
  try {
    const byKind = new Map<string, number>()
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')
        const kind = threadKind(comm)
        byKind.set(kind, (byKind.get(kind) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100)
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return byKind
  } catch {
    return null
  }
}

/** The listening socket's accept queue (rx_queue of the LISTEN row in /proc/net/tcp), or null. */
export function acceptQueue(port: number): number | null {
  try {
    const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
      const f = line.trim().split(/\s+/)
      if (f[1]?.endsWith(hexPort) && f[3] === '0A') return parseInt(f[4]!.split(':')[1]!, 16)
    }
  } catch {
    // Not Linux (no /proc): the queue is reported as n/a.
  }
  return null
}

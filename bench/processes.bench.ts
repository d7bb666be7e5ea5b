/**
 * One server process against several on the same machine: the Node server (`npm start`'s flags,
 * src/adapter/node/server.ts, each process on its own SQLite file and port) taking S sessions x E
 * events with 2 subscribers each, the sessions split among the processes by their number, as a
 * router in front of them would split them by session id (docs/deploy.md, "More than one process").
 * Rounds alternate the order of the process counts. Per count: events/s, the servers' CPU per event
 * (all their threads, summed over the processes), this client's CPU per event, lost or duplicate
 * results (must be 0).
 *
 *   npx node bench/processes.bench.ts [--processes 1,2] [--sessions 200] [--events 200] [--rounds 2]
 *     [--server-cpus LIST] [--client-cpus LIST]
 *
 * `--server-cpus 0 --client-cpus 1` pins the servers to CPU 0 and this client to CPU 1 (Linux
 * `taskset`), so the client never takes the servers' core: what more processes give when the
 * cores they may use are fixed. Without them, every process may run anywhere. Temp dirs are removed.
 */
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { badCount, runLoad } from './load-client.ts'
import { cpuSeconds, rssMiB } from './proc-stats.ts'
import { startServerChild } from './server-child.ts'

const { values } = parseArgs({
  options: {
    processes: { type: 'string', default: '1,2' },
    sessions: { type: 'string', default: '200' },
    events: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '2' },
    'server-cpus': { type: 'string' },
    'client-cpus': { type: 'string' },
    'max-seconds': { type: 'string', default: '300' },
  },
})
const COUNTS = values.processes.split(',').map(Number)
if (COUNTS.some((n) => !(Number.isInteger(n) && n >= 1))) {
  throw new Error(`--processes is a list of whole numbers >= 1, not '${values.processes}'`)
}
const SESSIONS = Number(values.sessions)
const INVOCATIONS = Math.max(1, Math.floor(Number(values.events) / 4))
const SERVER_CPUS = values['server-cpus']
const CPU_LIST = /^\d+([,-]\d+)*$/
for (const list of [SERVER_CPUS, values['client-cpus']]) {
  if (list !== undefined && !CPU_LIST.test(list)) throw new Error(`a CPU list is like 0 or 0,1 or 0-3, not '${list}'`)
}
if (values['client-cpus'] !== undefined) {
  // Every thread of this process, now and later (the client's own and libuv's).
  const pinned = spawnSync('taskset', ['-a', '-cp', values['client-cpus'], String(process.pid)], { encoding: 'utf8' })
  if (pinned.status !== 0) throw new Error(`taskset failed: ${pinned.stderr}`)
}

async function measure(count: number): Promise<{ line: string; bad: number }> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => startServerChild({ script: 'src/adapter/node/server.ts', cpus: SERVER_CPUS })),
  )
  try {
    const pids = servers.map((s) => s.pid)
    const cpuBefore = pids.map((pid) => cpuSeconds(pid) ?? NaN)
    const clientBefore = process.cpuUsage()
    const signal = AbortSignal.timeout(Number(values['max-seconds']) * 1000)
    // Session n goes to process n mod count: each process owns its sessions whole.
    const outcome = await runLoad((n) => servers[n % count]!.base, { sessions: SESSIONS, invocations: INVOCATIONS, subscribers: 2, signal })
    const serverCpu = pids.reduce((sum, pid, i) => sum + (cpuSeconds(pid) ?? NaN) - cpuBefore[i]!, 0)
    const client = process.cpuUsage(clientBefore)
    const events = outcome.eventsPerSecond * outcome.seconds
    const us = (seconds: number) => ((seconds * 1e6) / events).toFixed(0)
    const peakRss = pids.reduce((sum, pid) => sum + (rssMiB(pid)?.peak ?? NaN), 0)
    const line = `${count} process(es): ${outcome.eventsPerSecond.toFixed(0)} events/s; server CPU ${us(serverCpu)} us/event ` +
      `(${(serverCpu / outcome.seconds).toFixed(2)} cores busy), client ${us((client.user + client.system) / 1e6)} us/event; ` +
      `peak RSS ${peakRss.toFixed(0)} MiB in all; lost ${outcome.lost}, duplicates ${outcome.duplicates}, failed ${
        outcome.failedRequests + outcome.failedSessions
      }`
    return { line, bad: badCount(outcome) }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

console.log(
  `processes: ${SESSIONS} sessions x ${INVOCATIONS * 4} events, 2 subscribers each; servers on CPUs ${SERVER_CPUS ?? 'any'}, ` +
    `client on ${values['client-cpus'] ?? 'any'}; load average ${loadavg()[0]!.toFixed(1)}`,
)
let bad = 0
for (let r = 1; r <= Number(values.rounds); r++) {
  const order = r % 2 === 1 ? COUNTS : [...COUNTS].reverse()
  for (const count of order) {
    const { line, bad: b } = await measure(count)
    bad += b
    console.log(`round ${r}, ${line}`)
  }
}
process.exit(bad > 0 ? 1 : 0)

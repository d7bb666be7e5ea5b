/**
 * What the server's longest loop iterations were made of: reads the probe's longest iterations
 * (bench/server-probe.ts, `longestTurns`: when each ended, on the monotonic clock, and how long it
 * took) and the server's CPU profile of the same run (`--cpu-prof`), and for each iteration prints
 * the profile's samples inside it by what ran: garbage collection, V8's own work, and the
 * project's functions (inclusive: a function counts for every sample it is on the stack of), then
 * the functions that were running themselves (self time).
 *
 *   npx node bench/otlp-containment.ts --case flood --keep-probe --cpu-prof DIR 2> probe.txt
 *   npx node bench/turn-anatomy.ts --probe probe.txt --profile DIR/CPU.….cpuprofile [--top 12]
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

type CallFrame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] }
type Profile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] }
type Turn = { cpuMs: number; wallMs: number; gcMs: number; endUs: number }

const { values } = parseArgs({
  options: { probe: { type: 'string' }, profile: { type: 'string' }, top: { type: 'string', default: '12' } },
})
if (!values.probe || !values.profile) throw new Error('usage: --probe FILE (the probe line, `probe: {…}`) --profile FILE.cpuprofile')
const probeLine = readFileSync(values.probe, 'utf8').split('\n').findLast((l) => l.startsWith('probe: '))
if (!probeLine) throw new Error(`${values.probe}: no line starting with "probe: " (run the bench with --keep-probe)`)
const turns = (JSON.parse(probeLine.slice('probe: '.length)) as { longestTurns: Turn[] }).longestTurns
const profile = JSON.parse(readFileSync(values.profile, 'utf8')) as Profile
const top = Number(values.top)

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const label = (f: CallFrame) => {
  const file = f.url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, '$1/').replace(/^node:/, 'node:')
  return `${f.functionName || '(anonymous)'} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim()
}

// Each sample's time (µs, the profile's clock) and the time it stands for (until the next sample).
const times: number[] = []
let t = profile.startTime
for (const d of profile.timeDeltas) times.push(t += d)

for (const turn of turns) {
  const from = turn.endUs - turn.wallMs * 1000
  const inclusive = new Map<string, number>()
  const self = new Map<string, number>()
  let sampledUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    if (times[i]! < from || times[i]! > turn.endUs) continue
    const us = (times[i + 1] ?? times[i]!) - times[i]!
    sampledUs += us
    const leaf = byId.get(profile.samples[i]!)!
    self.set(label(leaf.callFrame), (self.get(label(leaf.callFrame)) ?? 0) + us)
    const seen = new Set<string>()
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame
      if (!frame.url.includes('/src/')) continue
      const name = label(frame)
      if (seen.has(name)) continue
      seen.add(name)
      inclusive.set(name, (inclusive.get(name) ?? 0) + us)
    }
  }
  const ms = (us: number) => (us / 1000).toFixed(1).padStart(7)
  const list = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => `  ${ms(us)} ms  ${name}`).join('\n')
  console.log(
    `\niteration: ${turn.cpuMs} ms thread CPU, ${turn.wallMs} ms wall, ${turn.gcMs} ms in GC pauses; ${
      (sampledUs / 1000).toFixed(1)
    } ms sampled`,
  )
  console.log(`self:\n${list(self)}`)
  console.log(`src/ functions, inclusive:\n${list(inclusive)}`)
}

/**
 * Where a server's main thread spends its busy time, by part of the live path, from a V8 CPU
 * profile (`.cpuprofile`): what `bench/load.ts` leaves with
 * `EVALSTREAM_LOAD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` (the largest file of DIR is the main
 * thread's). Idle samples are left out; each busy sample goes to one part:
 *
 * - by its leaf first: the collector, and the socket writes themselves (the replay baseline writes
 *   the same bytes);
 * - else a sample with a session's end anywhere in its stack belongs to the end (engine end, case
 *   result, `/end` answer, snapshot);
 * - else to the part of the deepest project frame on its stack (the code that asked for the work);
 * - else to HTTP and the framework (Node's HTTP, streams, hono, @hono/node-server).
 *
 * With `--us N` (the main thread's CPU per event posted, from the same run's `server CPU by thread`
 * line) each share is also given in µs per event; `--top K` lists the K heaviest leaf functions
 * under each part.
 *
 *   npx node bench/cpu-budget.ts FILE.cpuprofile [--us 210] [--top 0]
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

type Frame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: Frame; children?: number[] }
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { us: { type: 'string' }, top: { type: 'string', default: '0' } },
})
if (positionals.length !== 1) throw new Error('usage: npx node bench/cpu-budget.ts FILE.cpuprofile [--us N] [--top K]')

// A session's end, by its functions' names in this tree and in earlier ones (profiles of `--root` runs).
const END = /session-engine|[/]session\.ts|ended-answers|case-result/
const END_FUNCTIONS = /^(end|#close|endBytes|snapshotBytes|snapshotJson|caseResultJson|caseResultBytes|buildCaseResult)$/

/** Parts matched by the deepest project frame of a sample's stack, first match wins. */
const PARTS: Array<[string, (f: Frame) => boolean]> = [
  ['handing rows to the writer thread', (f) => /write-behind/.test(f.url)],
  ['decoding uploads (lines, ADK events, bounds)', (f) => /\/src\/(ingest|adk)\//.test(f.url)],
  [
    'logging results (JSON text, log, journal, index rows, metrics)',
    (f) => /result-json|result-log|\/sqlite\/|store\.ts|results-index|prometheus|result-feed|webhook|byte-budget/.test(f.url),
  ],
  ['SSE streams (batches, frames, encoding)', (f) => /result-source|results-stream|sse-frames/.test(f.url)],
  ['scoring (engine, criteria)', (f) => /\/src\/(engine|core)\//.test(f.url)],
  ['other project code (routes, feed, store)', (f) => /\/src\//.test(f.url)],
]
const LEAVES: Array<[string, (f: Frame) => boolean]> = [
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
  ['socket writes', (f) => /^(writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(f.functionName)],
]
const FRAMEWORK = 'HTTP and framework (Node HTTP, streams, hono, node-server)'

const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parentOf = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)

/** The frames from a sample's leaf up to the root, walked with a loop (profiles can be deep). */
function stackOf(id: number): Frame[] {
  const frames: Frame[] = []
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) frames.push(byId.get(at)!.callFrame)
  return frames
}

function partOf(stack: Frame[]): string {
  const leaf = stack[0]!
  const byLeaf = LEAVES.find(([, match]) => match(leaf))
  if (byLeaf) return byLeaf[0]
  if (stack.some((f) => END_FUNCTIONS.test(f.functionName) && END.test(f.url))) {
    return 'session end (engine end, case result, /end answer, snapshot)'
  }
  for (const frame of stack) {
    const part = PARTS.find(([, match]) => match(frame))
    if (part) return part[0]
  }
  return FRAMEWORK
}

const timeById = new Map<number, number>()
for (let i = 0; i < profile.samples.length; i++) {
  timeById.set(profile.samples[i]!, (timeById.get(profile.samples[i]!) ?? 0) + profile.timeDeltas[i]!)
}
const parts = new Map<string, { time: number; leaves: Map<string, number> }>()
let busy = 0
for (const [id, time] of timeById) {
  const stack = stackOf(id)
  if (stack[0]!.functionName === '(idle)') continue
  busy += time
  const name = partOf(stack)
  const part = parts.get(name) ?? { time: 0, leaves: new Map() }
  part.time += time
  const leaf = `${stack[0]!.functionName || '(anonymous)'} ${stack[0]!.url.split('/').pop()}:${stack[0]!.lineNumber + 1}`
  part.leaves.set(leaf, (part.leaves.get(leaf) ?? 0) + time)
  parts.set(name, part)
}

const us = values.us === undefined ? undefined : Number(values.us)
const top = Number(values.top)
console.log(`main thread's busy time: ${(busy / 1e6).toFixed(2)} s${us ? `, ${us} µs per event` : ''}`)
for (const [name, part] of [...parts].sort((a, b) => b[1].time - a[1].time)) {
  const share = part.time / busy
  console.log(`${(share * 100).toFixed(1).padStart(5)}%${us ? `${(share * us).toFixed(0).padStart(5)} µs` : ''}  ${name}`)
  for (const [leaf, time] of [...part.leaves].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`         ${((time / busy) * 100).toFixed(2).padStart(5)}%  ${leaf}`)
  }
}

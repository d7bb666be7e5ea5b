/**
 * Reads a sampling heap profile (`HeapProfiler.getSamplingProfile`, as bench/server-probe.ts writes
 * it with EVALSTREAM_PROBE_ALLOCATIONS=FILE): the bytes allocated in all (V8 scales each sample to
 * the allocations it stands for, collected ones included) and the functions that allocated most,
 * by their own allocations (not their callees').
 */
import { readFileSync } from 'node:fs'

type ProfileNode = {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children?: ProfileNode[]
}

export type Allocations = { totalBytes: number; top: Array<{ where: string; bytes: number }> }

/** @example const { totalBytes, top } = allocationsOf('/tmp/run.heapprofile', 15) */
export function allocationsOf(file: string, topN: number): Allocations {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }
  const bySite = new Map<string, number>()
  let totalBytes = 0
  // Iterative: a deep stack must not overflow this reader.
  const stack: ProfileNode[] = [profile.head]
  while (stack.length > 0) {
    const node = stack.pop()!
    totalBytes += node.selfSize
    if (node.selfSize > 0) {
      const { functionName, url, lineNumber } = node.callFrame
      const file = url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, '$1/')
      const where = `${functionName || '(anonymous)'} ${file || '(native)'}:${lineNumber + 1}`
      bySite.set(where, (bySite.get(where) ?? 0) + node.selfSize)
    }
    for (const child of node.children ?? []) stack.push(child)
  }
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, topN).map(([where, bytes]) => ({ where, bytes }))
  return { totalBytes, top }
}

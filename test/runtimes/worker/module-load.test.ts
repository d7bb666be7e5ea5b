/**
 * What loading the Worker's modules costs: zod builds a schema eagerly and not cheaply, and a Worker
 * loads all its modules on every cold start, so no object or field schema may be built at load;
 * schemas are built on first use (src/adk/lazy-schema.ts). The Worker's modules are loaded in a Node
 * process whose hook sees every zod instance as it is set up, and lists their kinds.
 * Covers: src/adk/lazy-schema.ts, src/adk/casing.ts (lazyAdkObject), worker/index.ts.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'

// zod sets an instance up by reading its own `_zod` first (absent until then): a getter on
// Object.prototype sees that read. The instances are listed by kind once the import is done.
const SCRIPT = `
const seen = []
Object.defineProperty(Object.prototype, '_zod', {
  configurable: true,
  get() {
    if (new Error().stack.split('\\n')[2]?.includes('init')) seen.push(this)
    return undefined
  },
})
const kinds = () => {
  const counts = {}
  for (const inst of seen.splice(0)) counts[inst._zod?.def?.type] = (counts[inst._zod?.def?.type] ?? 0) + 1
  return counts
}
await import(process.argv[1])
const atLoad = kinds()
const z = await import('zod')
z.object({ a: z.string() })
console.log(JSON.stringify({ atLoad, probe: kinds() }))
`

function kindsAtLoad(entry: string): Promise<{ atLoad: Record<string, number>; probe: Record<string, number> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, entry], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  return new Promise((resolve, reject) =>
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}: ${err}`))))
  )
}

describe("the Worker's modules at load", () => {
  it('build no object, string or other field schema, only the lazy wrappers in front of them', async () => {
    const { atLoad, probe } = await kindsAtLoad(`${process.cwd()}/worker/index.ts`)
    // The hook works: building a schema afterwards is seen.
    expect(probe).toEqual({ object: 1, string: 1 })
    expect(atLoad.lazy).toBeGreaterThan(50)
    expect(atLoad.object).toBeUndefined()
    expect(atLoad.string).toBeUndefined()
    expect(atLoad.optional).toBeUndefined()
    expect(atLoad.array).toBeUndefined()
  })
})

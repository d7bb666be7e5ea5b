/**
 * The package's entry points, imported by package name (Node's self-reference through `exports`),
 * as a user of `evalstream` would: each subpath loads and carries what its index promises.
 * Covers: package.json, src/index.ts and the other entry points.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))

describe('package exports', () => {
  it('declares the subpaths and no side effects', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './adk', './core', './engine', './http', './ingest', './package.json'])
    expect(pkg.sideEffects).toBe(false)
  })

  it('evalstream', async () => {
    const root = await import('evalstream')
    expect(root.rouge1('the cat sat', 'the cat sat down').fmeasure).toBeCloseTo(6 / 7, 12)
    expect(typeof root.createApp).toBe('function')
  })

  it('evalstream/core', async () => {
    const core = await import('evalstream/core')
    expect(core.criterionByName('tool_trajectory_avg_score')).toBeDefined()
    expect(core.matchToolTrajectory([{ name: 'f', args: { x: 1 } }], [{ name: 'f', args: { x: 1.0 } }], 'EXACT')).toBe(true)
  })

  it('evalstream/ingest', async () => {
    const ingest = await import('evalstream/ingest')
    const out = ingest.decodeAll('sse', 'data: {"author":"a","invocationId":"i","content":{"parts":[{"text":"hi"}]}}\n\n')
    expect(out.events.map((e) => e.event.author)).toEqual(['a'])
  })

  it('evalstream/adk', async () => {
    const adk = await import('evalstream/adk')
    expect(adk.EvalSet.safeParse({ eval_set_id: 's', eval_cases: [] }).success).toBe(true)
  })

  it('evalstream/engine', async () => {
    const engine = await import('evalstream/engine')
    const emitted: string[] = []
    const created = engine.createSessionEngine({ spec: { session_id: 's1' }, emit: (body) => emitted.push(body.type) })
    if (!created.ok) throw new Error(created.problem.detail)
    await created.engine.end()
    expect(emitted).toContain('case.result')
  })

  it('evalstream/http', async () => {
    const http = await import('evalstream/http')
    const setup = http.depsFromEnv({}, { store: http.memorySessionStore() })
    if (!setup.ok) throw new Error(setup.error)
    const res = await http.createApp(setup.deps).request('/healthz')
    expect(await res.json()).toEqual({ ok: true })
  })
})

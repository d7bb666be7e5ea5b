/**
 * The eval set store contract (src/http/dev-eval/eval-set-store.ts) on both backends: in memory and in
 * node:sqlite (the same code a Durable Object runs over ctx.storage.sql). Scoping by tenant and
 * app, create-never-replaces, the set cap, result order and the result cap, and (SQLite) that
 * what is written survives reopening the file.
 * Covers: src/http/dev-eval/eval-set-store.ts, src/http/dev-eval/sqlite-eval-set-store.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, describe, expect, it } from 'vitest'
import { type EvalSetStore, type EvalStoreLimits, memoryEvalSetStore } from '../../../../src/http/dev-eval/eval-set-store.ts'
import { sqliteEvalSetStore } from '../../../../src/http/dev-eval/sqlite-eval-set-store.ts'
import { sqlFromDatabaseSync } from '../../../../src/session/sql.ts'

const LIMITS: EvalStoreLimits = { maxSets: 3, maxResults: 2 }
const dir = mkdtempSync(join(tmpdir(), 'evalstream-evalsets-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const backends: Array<[string, () => EvalSetStore]> = [
  ['memory', () => memoryEvalSetStore(LIMITS)],
  ['node:sqlite', () => sqliteEvalSetStore(sqlFromDatabaseSync(new DatabaseSync(':memory:')), LIMITS)],
]
const A = { app: 'weather_agent' }
const ACME = { tenant: 'acme', app: 'weather_agent' }
const set = (id: string, cases = 0) =>
  JSON.stringify({ eval_set_id: id, eval_cases: Array.from({ length: cases }, (_, i) => ({ eval_id: `c${i}` })) })
const result = (id: string, evalSetId = 's') => ({ id, evalSetId, json: JSON.stringify({ eval_set_result_id: id }), createdMs: 1 })

describe.each(backends)('eval set store contract: %s', (_name, make) => {
  it('creates, lists sorted, reads, replaces and deletes eval sets', () => {
    const store = make()
    expect(store.listSets(A)).toEqual([])
    expect(store.getSet(A, 'b')).toBeUndefined()
    expect(store.createSet(A, 'b', set('b'), 1)).toBe('created')
    expect(store.createSet(A, 'a', set('a'), 1)).toBe('created')
    expect(store.createSet(A, 'b', set('b', 5), 2)).toBe('exists')
    expect(JSON.parse(store.getSet(A, 'b')!).eval_cases).toHaveLength(0)
    expect(store.listSets(A)).toEqual(['a', 'b'])
    expect(store.replaceSet(A, 'b', set('b', 2), 3)).toBe(true)
    expect(JSON.parse(store.getSet(A, 'b')!).eval_cases).toHaveLength(2)
    expect(store.replaceSet(A, 'zz', set('zz'), 3)).toBe(false)
    expect(store.getSet(A, 'zz')).toBeUndefined()
    expect(store.deleteSet(A, 'a')).toBe(true)
    expect(store.deleteSet(A, 'a')).toBe(false)
    expect(store.listSets(A)).toEqual(['b'])
  })

  it('keeps tenants and apps apart', () => {
    const store = make()
    store.createSet(A, 'shared', set('shared', 1), 1)
    expect(store.listSets(ACME)).toEqual([])
    expect(store.getSet(ACME, 'shared')).toBeUndefined()
    expect(store.deleteSet(ACME, 'shared')).toBe(false)
    expect(store.createSet(ACME, 'shared', set('shared', 3), 1)).toBe('created')
    expect(JSON.parse(store.getSet(A, 'shared')!).eval_cases).toHaveLength(1)
    expect(store.listSets({ app: 'other_agent' })).toEqual([])
    store.addResult(ACME, result('r1'))
    expect(store.listResults(A)).toEqual([])
    expect(store.getResult(A, 'r1')).toBeUndefined()
  })

  it('refuses a set beyond the cap, per scope', () => {
    const store = make()
    for (const id of ['a', 'b', 'c']) expect(store.createSet(A, id, set(id), 1)).toBe('created')
    expect(store.createSet(A, 'd', set('d'), 1)).toBe('full')
    expect(store.createSet(ACME, 'd', set('d'), 1)).toBe('created')
    store.deleteSet(A, 'a')
    expect(store.createSet(A, 'd', set('d'), 1)).toBe('created')
  })

  it('lists results oldest first and drops the oldest beyond the cap', () => {
    const store = make()
    store.addResult(A, result('r1'))
    store.addResult(A, result('r2'))
    expect(store.listResults(A)).toEqual(['r1', 'r2'])
    expect(JSON.parse(store.getResult(A, 'r2')!)).toEqual({ eval_set_result_id: 'r2' })
    store.addResult(A, result('r3'))
    expect(store.listResults(A)).toEqual(['r2', 'r3'])
    expect(store.getResult(A, 'r1')).toBeUndefined()
  })
})

describe('eval set store on node:sqlite', () => {
  it('keeps eval sets and results across a reopen of the file, and creates no tables for reads', () => {
    const path = join(dir, 'evalstream.db')
    const first = new DatabaseSync(path)
    const store = sqliteEvalSetStore(sqlFromDatabaseSync(first))
    expect(store.listSets(A)).toEqual([])
    expect(first.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'ev_%'").all()).toEqual([])
    store.createSet(ACME, 'kept', set('kept', 1), 1)
    store.addResult(ACME, result('r1', 'kept'))
    first.close()
    const again = sqliteEvalSetStore(sqlFromDatabaseSync(new DatabaseSync(path)))
    expect(again.listSets(ACME)).toEqual(['kept'])
    expect(again.listResults(ACME)).toEqual(['r1'])
  })
})

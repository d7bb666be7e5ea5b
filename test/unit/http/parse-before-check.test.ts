/**
 * A create-session body 16 MB deep is answered 422 naming the limit, the JSON path and the
 * character, without JSON.parse ever seeing it (counted with a spy), and the server goes on.
 * Covers: src/http/create-request.ts, src/adk/json-scan.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('create bodies are bounded before they are parsed', () => {
  it('a 16 MB [[[...]]] eval case: 422 at the first bracket past the depth limit, never parsed', async () => {
    const setup = depsFromEnv({ ...NO_JUDGE_ENV }, { store: memorySessionStore() })
    if (!setup.ok) throw new Error(setup.error)
    const app = createApp(setup.deps)
    const depth = 8 * 1024 * 1024 - 16
    const body = `{"eval_case":${'['.repeat(depth)}${']'.repeat(depth)}}`
    const parsedLengths: number[] = []
    const realParse = JSON.parse
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsedLengths.push(text.length)
      return realParse(text, reviver)
    })
    const res = await app.request('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(res.status).toBe(422)
    const problem = (await res.json()) as { title: string; detail: string; limit: unknown; path: string }
    expect(problem.title).toBe('JSON nested too deep')
    expect(problem.detail).toMatch(/nested more than 100 levels deep \(EVALSTREAM_MAX_JSON_DEPTH=100\) \(at character 112\)$/)
    expect(problem.limit).toEqual({ name: 'EVALSTREAM_MAX_JSON_DEPTH', value: 100 })
    expect(problem.path).toBe(`$.eval_case${'[0]'.repeat(99)}`)
    expect(Math.max(0, ...parsedLengths)).toBeLessThan(1000)
    const next = await app.request('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(next.status).toBe(201)
  })
})

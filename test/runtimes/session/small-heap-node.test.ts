/**
 * The byte budgets on a real Node server with a small heap (--max-old-space-size=64): clients push
 * sessions and events until the budgets refuse them, and the server answers every refusal cleanly
 * (413 for a session's budget, 503 with Retry-After for the process's), keeps serving /healthz and
 * does not crash. The process budget is the default the server derives from its heap. Nothing
 * here is timed: each step waits for the answer to the one before.
 * Covers: src/session/byte-budget.ts, src/adapter/node/server.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'

const SESSION_BYTES = 6_000_000
/** Eight agent text events of ~400 KB in one body (3.2 MB). */
const body = (inv: string) =>
  JSON.stringify(
    Array.from(
      { length: 8 },
      (_, n) => ({
        author: 'agent',
        invocationId: `${inv}-${n}`,
        content: { role: 'model', parts: [{ text: `${n}`.padEnd(400_000, 'x') }] },
      }),
    ),
  )

describe('Node with a 64 MB heap, pushed to its byte budgets', () => {
  let server: ServerProcess
  const url = (path: string) => `${server.baseUrl}${path}`
  const post = (path: string, text?: string) =>
    fetch(url(path), { method: 'POST', headers: { 'content-type': 'application/json' }, ...(text === undefined ? {} : { body: text }) })
  const create = (id: string) => post('/v1/sessions', JSON.stringify({ session_id: id, eval_config: CONFIG }))
  const healthy = async () => expect((await fetch(url('/healthz'))).status).toBe(200)

  beforeAll(async () => {
    server = await spawnServer('node', {
      env: { NODE_OPTIONS: '--max-old-space-size=64', EVALSTREAM_MAX_SESSION_BYTES: String(SESSION_BYTES), EVALSTREAM_DB: ':memory:' },
      waitFor: ['evalstream listening', '(EVALSTREAM_MAX_PROCESS_BYTES)'],
    })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('refuses past each budget, keeps serving and never runs out of heap', async () => {
    const budget = Number(/all sessions hold at most (\d+) in memory \(EVALSTREAM_MAX_PROCESS_BYTES\)/.exec(server.output())?.[1])
    // A quarter of the 64 MiB old space.
    expect(budget).toBe(16 * 1024 * 1024)

    // One session to its own budget: 413 naming the limit and the first event refused.
    expect((await create('one')).status).toBe(201)
    const first = await post('/v1/sessions/one/events', body('a'))
    expect(first.status).toBe(202)
    const over = await post('/v1/sessions/one/events', body('b'))
    expect(over.status).toBe(413)
    const problem = (await over.json()) as { limit: unknown; rejected: { index: number }[]; detail: string }
    expect(problem.limit).toEqual({ name: 'EVALSTREAM_MAX_SESSION_BYTES', value: SESSION_BYTES })
    expect(problem.detail).toMatch(new RegExp(`event ${problem.rejected[0]!.index} `))
    await healthy()

    // More sessions until the process budget refuses: events first, then new sessions.
    const statuses: number[] = []
    let refusedCreate: Response | undefined
    for (let n = 0; n < 20 && !refusedCreate; n++) {
      const created = await create(`s${n}`)
      if (created.status === 503) refusedCreate = created
      else {
        expect(created.status).toBe(201)
        const pushed = await post(`/v1/sessions/s${n}/events`, body(`s${n}`))
        statuses.push(pushed.status)
        if (pushed.status === 503) expect(pushed.headers.get('retry-after')).toBe('10')
        await pushed.body?.cancel()
      }
      await healthy()
    }
    expect(statuses).toContain(503)
    expect(statuses.every((s) => s === 202 || s === 503 || s === 413)).toBe(true)
    expect(refusedCreate?.headers.get('retry-after')).toBe('10')
    expect(await refusedCreate!.json()).toMatchObject({ status: 503, limit: { name: 'EVALSTREAM_MAX_PROCESS_BYTES', value: budget } })

    // Ending sessions makes room: ended ones go first when a new session needs the memory.
    expect((await post('/v1/sessions/one/end')).status).toBe(200)
    for (let n = 0; n < statuses.length; n++) await (await post(`/v1/sessions/s${n}/end`)).body?.cancel()
    expect((await create('after')).status).toBe(201)
    expect((await post('/v1/sessions/after/events', body('after'))).status).toBe(202)
    await healthy()
    expect(server.child.exitCode).toBeNull()
    expect(server.output()).not.toMatch(/heap out of memory|FATAL ERROR/)
  })
})

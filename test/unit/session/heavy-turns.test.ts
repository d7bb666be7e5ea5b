/**
 * The heavy work of many sessions (case results built at their end, ended snapshots) starts a few
 * per turn of the event loop, in the order asked, so I/O that arrives meanwhile is served between.
 */
import { describe, expect, it } from 'vitest'
import { HEAVY_JOBS_PER_TURN, heavyTurn, heavyTurnsWaiting } from '../../../src/session/heavy-turns.ts'

/** Resolves after the immediates queued so far have run: one turn of the event loop later. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('heavyTurn', () => {
  it(`lets ${HEAVY_JOBS_PER_TURN} callers start per turn of the event loop, first come first served`, async () => {
    const started: number[] = []
    const jobs = Array.from({ length: 2 * HEAVY_JOBS_PER_TURN + 1 }, (_, i) => heavyTurn().then(() => void started.push(i)))
    // None starts in the turn that asked.
    await Promise.resolve()
    expect(started).toEqual([])
    expect(heavyTurnsWaiting()).toBe(jobs.length)
    await turn()
    expect(started).toEqual([...Array(HEAVY_JOBS_PER_TURN).keys()])
    await turn()
    expect(started).toEqual([...Array(2 * HEAVY_JOBS_PER_TURN).keys()])
    await turn()
    expect(started).toEqual([...Array(jobs.length).keys()])
    await Promise.all(jobs)
    expect(heavyTurnsWaiting()).toBe(0)
  })

  it('starts again for callers that come after the queue ran dry', async () => {
    await heavyTurn()
    expect(heavyTurnsWaiting()).toBe(0)
    let started = false
    const job = heavyTurn().then(() => void (started = true))
    await turn()
    expect(started).toBe(true)
    await job
  })
})

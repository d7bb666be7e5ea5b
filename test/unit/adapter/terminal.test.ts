/** Colours only where they help (NO_COLOR, TERM=dumb, pipes), and a notice during long waits. */
import { describe, expect, it } from 'vitest'
import { paintStatuses, useColor, whileWaiting } from '../../../src/adapter/node/terminal.ts'
import {
  DEFAULT_LOOPBACK_WAIT_MS,
  isLoopback,
  WAIT_NOTE_EVERY_MS,
  WAIT_RETRY_MS,
  waitForAgent,
} from '../../../src/adapter/node/wait-for-agent.ts'

describe('colours', () => {
  it('are on for a terminal only, and NO_COLOR or TERM=dumb turn them off', () => {
    expect(useColor({}, true)).toBe(true)
    expect(useColor({}, false)).toBe(false)
    expect(useColor({ NO_COLOR: '1' }, true)).toBe(false)
    expect(useColor({ NO_COLOR: '' }, true)).toBe(true)
    expect(useColor({ TERM: 'dumb' }, true)).toBe(false)
  })
  it('paint the verdict words and nothing else', () => {
    expect(paintStatuses('case x: FAILED, PASSEDX')).toBe('case x: \x1b[31mFAILED\x1b[39m, PASSEDX')
  })
})

describe('whileWaiting', () => {
  it('writes the notice on every tick until the work settles, then stops the timer', async () => {
    let tick = () => {}
    let cleared = false
    const written: string[] = []
    let finish = (_: string) => {}
    const work = new Promise<string>((resolve) => (finish = resolve))
    const waiting = whileWaiting(work, {
      everyMs: 10_000,
      write: (t) => written.push(t),
      message: (ms) => `waited ${ms}`,
      setInterval: (fn) => ((tick = fn), {}),
      clearInterval: () => (cleared = true),
    })
    tick()
    tick()
    finish('done')
    expect(await waiting).toBe('done')
    expect(written).toEqual(['waited 10000', 'waited 20000'])
    expect(cleared).toBe(true)
  })
})

describe('waitForAgent', () => {
  const refused = () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))
  const clock = () => {
    let t = 0
    return { now: () => t, sleep: async (ms: number) => void (t += ms) }
  }
  it('waits while the connection is refused, says what for once, and goes on when the agent answers', async () => {
    const c = clock()
    let calls = 0
    const err: string[] = []
    const fetchStub = (() => (++calls < 4 ? refused() : Promise.resolve(new Response('[]', { status: 404 })))) as typeof fetch
    const out = await waitForAgent('http://127.0.0.1:8000', 30_000, { fetch: fetchStub, ...c, err: (t) => err.push(t) })
    expect(out).toEqual({ ok: true, waitedMs: 3 * WAIT_RETRY_MS })
    expect(err[0]).toBe(
      'evalstream: waiting for the agent at http://127.0.0.1:8000 to listen (ECONNREFUSED; up to 30 s, --wait 0 to not wait)\n',
    )
    expect(err[1]).toContain('is listening (after 0.8 s)')
  })
  it('says every 30 s that it still waits', async () => {
    const c = clock()
    const err: string[] = []
    const out = await waitForAgent('http://127.0.0.1:8000', 70_000, { fetch: refused as typeof fetch, ...c, err: (t) => err.push(t) })
    expect(out).toEqual({ ok: false, waitedMs: 70_000, cause: 'ECONNREFUSED' })
    expect(WAIT_NOTE_EVERY_MS).toBe(30_000)
    expect(err).toEqual([
      'evalstream: waiting for the agent at http://127.0.0.1:8000 to listen (ECONNREFUSED; up to 70 s, --wait 0 to not wait)\n',
      'evalstream: still waiting for the agent at http://127.0.0.1:8000 (30 s of 70 s)\n',
      'evalstream: still waiting for the agent at http://127.0.0.1:8000 (60 s of 70 s)\n',
    ])
  })
  it('gives up at the deadline with the cause, and is bounded even by a clock that stands still', async () => {
    const c = clock()
    const out = await waitForAgent('http://localhost:9', 1_000, { fetch: refused as typeof fetch, ...c, err: () => {} })
    expect(out).toEqual({ ok: false, waitedMs: 1_000, cause: 'ECONNREFUSED' })
    let calls = 0
    const frozen = await waitForAgent('http://localhost:9', 1_000, {
      fetch: (() => (calls++, refused())) as typeof fetch,
      now: () => 0,
      sleep: async () => {},
      err: () => {},
    })
    expect(frozen.ok).toBe(false)
    expect(calls).toBe(1_000 / WAIT_RETRY_MS + 1)
  })
  it('is on by default for loopback agents only', () => {
    expect(DEFAULT_LOOPBACK_WAIT_MS).toBe(180_000)
    for (const url of ['http://127.0.0.1:8000', 'http://localhost:1', 'http://[::1]:8000']) expect(isLoopback(url)).toBe(true)
    for (const url of ['https://agent.example.com', 'http://10.0.0.2:8000']) expect(isLoopback(url)).toBe(false)
  })
})

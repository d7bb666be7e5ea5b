/**
 * The lock around the e2e agent's install (test/support/install-lock.js): one holder at a time, a
 * bounded wait with a clear error, stale locks of dead processes taken over. The clock, sleep and
 * liveness check are the test's own, so nothing here waits.
 * Covers: test/support/install-lock.js.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { acquireInstallLock } from '../../support/install-lock.js'

let dir: string
let lock: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'install-lock-'))
  lock = join(dir, '.setup.lock')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** A clock that only `sleep` moves; `onSleep` runs after each sleep with the sleep's number. */
function manualTime(onSleep: (n: number) => void = () => {}) {
  let t = 0
  let sleeps = 0
  return {
    now: () => t,
    sleep: (ms: number) => {
      t += ms
      onSleep(++sleeps)
    },
    sleeps: () => sleeps,
  }
}

describe('acquireInstallLock', () => {
  it('takes a free lock at once, writes its pid, and release removes it (no draft left)', () => {
    const time = manualTime()
    const release = acquireInstallLock(lock, { pid: 111, isAlive: () => true, ...time, log: () => {} })
    expect(readFileSync(lock, 'utf8')).toBe('111\n')
    expect(time.sleeps()).toBe(0)
    release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('waits while a live process holds it, then takes it when that one releases', () => {
    writeFileSync(lock, '222\n')
    const lines: string[] = []
    const time = manualTime((n) => {
      if (n === 3) rmSync(lock)
    })
    const release = acquireInstallLock(lock, { pid: 111, isAlive: (pid) => pid === 222, ...time, pollMs: 500, log: (l) => lines.push(l) })
    expect(time.sleeps()).toBe(3)
    expect(readFileSync(lock, 'utf8')).toBe('111\n')
    expect(lines).toEqual([`waiting for another install of this folder to finish (pid 222, lock ${lock})`])
    release()
    expect(existsSync(lock)).toBe(false)
  })

  it('gives up after the timeout, naming the holder and the file to remove', () => {
    writeFileSync(lock, '222\n')
    const time = manualTime()
    expect(() => acquireInstallLock(lock, { pid: 111, isAlive: () => true, ...time, timeoutMs: 5_000, pollMs: 500, log: () => {} }))
      .toThrow(`another install holds ${lock} (pid 222) and did not finish within 5 s; when no install is running, remove that file`)
    expect(time.sleeps()).toBe(10)
    expect(readFileSync(lock, 'utf8')).toBe('222\n')
    expect(readdirSync(dir)).toEqual(['.setup.lock'])
  })

  it('takes over a lock whose process is gone, and says so', () => {
    writeFileSync(lock, '333\n')
    const lines: string[] = []
    const time = manualTime()
    const release = acquireInstallLock(lock, { pid: 111, isAlive: (pid) => pid !== 333, ...time, log: (l) => lines.push(l) })
    expect(time.sleeps()).toBe(0)
    expect(readFileSync(lock, 'utf8')).toBe('111\n')
    expect(lines).toEqual([`removed a stale install lock ${lock} (pid 333 is not running)`])
    release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('leaves alone a lock that changed hands between seeing the dead owner and taking it over', () => {
    writeFileSync(lock, '333\n')
    const time = manualTime()
    const isAlive = (pid: number) => {
      // While we look at the dead 333, another waiter removes its lock and takes its own (444).
      if (pid === 333) writeFileSync(lock, '444\n')
      return pid !== 333
    }
    expect(() => acquireInstallLock(lock, { pid: 111, isAlive, ...time, timeoutMs: 1_000, pollMs: 500, log: () => {} }))
      .toThrow(`(pid 444)`)
    expect(readFileSync(lock, 'utf8')).toBe('444\n')
    expect(readdirSync(dir)).toEqual(['.setup.lock'])
  })

  it("a release after a takeover does not remove the new owner's lock", () => {
    const release = acquireInstallLock(lock, { pid: 111, isAlive: () => true, ...manualTime(), log: () => {} })
    writeFileSync(lock, '555\n')
    release()
    expect(readFileSync(lock, 'utf8')).toBe('555\n')
  })
})

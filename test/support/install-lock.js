/**
 * A lock file that one process at a time holds around an install into a shared folder, so two
 * `npm run setup:e2e` (say `npm run example:agent` while `npm test` installs) never run npm in the
 * same node_modules at once: the second waits for the first, then finds the install done.
 *
 * The lock is a file holding the owner's pid, created whole with link(2), which fails when the name
 * exists (no reader ever sees it half written). A lock whose pid is no longer running (its owner was
 * killed) is stale: it is taken over by renaming it away first, so of two waiters that both saw the
 * same dead pid only one removes it. Waiting is bounded; then the error says who holds the lock and
 * which file to remove.
 *
 * Plain JavaScript, like setup-e2e.js (the machine's older Node runs it). Clock, sleep and the
 * liveness check are parameters so the tests drive them without waiting.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'

/** How long a second installer waits for the first before giving up (an install takes 1-2 minutes). */
export const INSTALL_LOCK_TIMEOUT_MS = 10 * 60_000
/** How often a waiter looks at the lock again. */
export const INSTALL_LOCK_POLL_MS = 500
/** A waiter says it is waiting, and for whom, this often. */
const WAIT_NOTE_EVERY_MS = 30_000

/** True when a process with this pid runs (signal 0 checks without signalling). */
export function pidIsAlive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, as another user.
    return err.code === 'EPERM'
  }
}

/** Blocks the thread for `ms` (the installer is synchronous anyway). */
export function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** The pid in a lock file, or undefined when it is gone or does not hold one. */
function readOwner(path) {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch (err) {
    if (err.code === 'ENOENT') return undefined
    throw err
  }
}

/**
 * Takes the lock at `path` for this process, waiting while a live process holds it.
 * Returns a release function. Throws when the wait runs past `timeoutMs`.
 *
 * @param {string} path the lock file
 * @param {{ pid?: number, isAlive?: (pid: number) => boolean, now?: () => number, sleep?: (ms: number) => void,
 *   timeoutMs?: number, pollMs?: number, log?: (line: string) => void }} [options]
 * @returns {() => void}
 */
export function acquireInstallLock(path, options = {}) {
  const {
    pid = process.pid,
    isAlive = pidIsAlive,
    now = Date.now,
    sleep = sleepSync,
    timeoutMs = INSTALL_LOCK_TIMEOUT_MS,
    pollMs = INSTALL_LOCK_POLL_MS,
    log = (line) => console.error(line),
  } = options
  const draft = `${path}.${pid}.new`
  writeFileSync(draft, `${pid}\n`)
  const start = now()
  let lastNote
  try {
    for (;;) {
      try {
        linkSync(draft, path)
        return () => {
          // Only our own lock: a release after the lock was taken over removes nothing else.
          if (readOwner(path) === pid) rmSync(path, { force: true })
        }
      } catch (err) {
        if (err.code !== 'EEXIST') throw err
      }
      const owner = readOwner(path)
      if (owner !== undefined && owner !== pid && !isAlive(owner)) {
        takeOverStale(path, owner, pid, log)
        continue
      }
      const waited = now() - start
      if (waited >= timeoutMs) {
        throw new Error(
          `another install holds ${path} (pid ${owner ?? 'unknown'}) and did not finish within ${Math.round(timeoutMs / 1000)} s; ` +
            `when no install is running, remove that file and try again`,
        )
      }
      if (lastNote === undefined || now() - lastNote >= WAIT_NOTE_EVERY_MS) {
        lastNote = now()
        log(`waiting for another install of this folder to finish (pid ${owner ?? 'unknown'}, lock ${path})`)
      }
      sleep(pollMs)
    }
  } finally {
    rmSync(draft, { force: true })
  }
}

/** Removes a stale lock left by the dead `owner`, and nothing newer that replaced it meanwhile. */
function takeOverStale(path, owner, pid, log) {
  const aside = `${path}.${pid}.stale`
  try {
    renameSync(path, aside)
  } catch (err) {
    if (err.code === 'ENOENT') return // another waiter took it over first
    throw err
  }
  const moved = readOwner(aside)
  if (moved !== owner) {
    // Between our read and our rename the lock changed hands: put the new owner's lock back.
    try {
      linkSync(aside, path)
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
    }
  } else {
    log(`removed a stale install lock ${path} (pid ${owner} is not running)`)
  }
  rmSync(aside, { force: true })
}

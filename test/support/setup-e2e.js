#!/usr/bin/env node
/**
 * `npm run setup:e2e`: installs the end-to-end agent package (test/e2e/agent, ADK for JavaScript,
 * ~500 packages) as its own step, so a failure there never blocks the unit and runtime tests.
 *
 * Plain JavaScript on purpose: .ci/run starts it with the machine's Node (20) while the root
 * `npm ci` is still installing the pinned Node 24 beside it.
 *
 * `npm ci` on a fresh clone (exactly the lockfile), `npm install` when node_modules is already there
 * (a few seconds when it is up to date). On failure it leaves FAILURE_FILE with the tail of npm's
 * output; test/support/adk-agent.ts turns that into a clear e2e failure. `--warn-only` (used by
 * `npm test`) reports the failure and exits 0 so the test run goes on.
 *
 * It also makes sure headless Chromium is there for the browser tests (dashboard, Eval tab): when
 * CHROMIUM_PATH is missing and we are root, `apt-get install -y chromium` (Debian's package).
 * Never fatal: without it those tests skip and say why.
 *
 * @example
 * // node test/support/setup-e2e.js --warn-only
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { acquireInstallLock } from './install-lock.js'

const AGENT_DIR = fileURLToPath(new URL('../e2e/agent/', import.meta.url))
/** Written when the install failed, removed when it succeeds; read by test/support/adk-agent.ts. */
export const FAILURE_FILE = join(AGENT_DIR, 'node_modules', '.evalstream-setup-failed')
/** Held while npm runs in AGENT_DIR, so two setups at once never install into one node_modules together. */
const LOCK_FILE = join(AGENT_DIR, '.setup-e2e.lock')
/** How much of npm's output the failure file keeps. */
const MAX_LOG_CHARS = 4_000

const warnOnly = process.argv.includes('--warn-only')

/** Where the browser tests (test/e2e/browser.ts) look for Debian's Chromium (EVALSTREAM_CHROMIUM overrides). */
const CHROMIUM_PATH = process.env.EVALSTREAM_CHROMIUM || '/usr/bin/chromium'
/** apt-get waits this long (s) for a dpkg lock another installer holds, then gives up. */
const APT_LOCK_TIMEOUT_S = 300

/**
 * Headless Chromium for the browser e2e tests (dashboard, Eval tab): Debian's `chromium`, installed with apt-get when
 * missing and when running as root. Never fails the setup: without it that test skips, saying why.
 */
function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return
  const why = `no Chromium at ${CHROMIUM_PATH}; the browser e2e tests (dashboard, Eval tab) will be skipped`
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    console.error(`setup:e2e: ${why} (as root on Debian/Ubuntu: apt-get install -y chromium)`)
    return
  }
  const apt = (...args) =>
    spawnSync('apt-get', ['-o', `DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT_S}`, ...args], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0
  console.error('setup:e2e: apt-get install -y chromium')
  // A fresh image may have no package lists yet: update once, only when the first try fails.
  if (
    apt('install', '-y', '--no-install-recommends', 'chromium') ||
    (apt('update') && apt('install', '-y', '--no-install-recommends', 'chromium'))
  ) return
  console.error(`setup:e2e: apt-get could not install chromium; ${why}`)
}

ensureChromium()
let release
try {
  release = acquireInstallLock(LOCK_FILE, { log: (line) => console.error(`setup:e2e: ${line}`) })
} catch (err) {
  console.error(`setup:e2e: ${err.message}`)
  process.exit(warnOnly ? 0 : 1)
}
// Decided under the lock: a setup that waited finds the other one's install and only checks it.
const fresh = !existsSync(join(AGENT_DIR, 'node_modules'))
const args = [fresh ? 'ci' : 'install', '--prefix', AGENT_DIR, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']
console.error(`setup:e2e: npm ${args.join(' ')}`)
const run = spawnSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], shell: process.platform === 'win32' })
process.stderr.write(run.stderr ?? '')

if (run.status === 0) {
  rmSync(FAILURE_FILE, { force: true })
  release()
  process.exit(0)
}
const why = run.error ? String(run.error) : `npm exited with ${run.status ?? run.signal}`
mkdirSync(join(AGENT_DIR, 'node_modules'), { recursive: true })
writeFileSync(FAILURE_FILE, `${why}\n${(run.stderr ?? '').slice(-MAX_LOG_CHARS)}`)
release()
console.error(`setup:e2e: the e2e agent install FAILED (${why}); the e2e tests will fail, unit and runtime tests still run.`)
process.exit(warnOnly ? 0 : 1)

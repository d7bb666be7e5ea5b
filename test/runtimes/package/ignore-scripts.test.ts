/**
 * `npm start` and the test scripts after `npm ci --ignore-scripts` (as stricter npm defaults will
 * install): the devDependency `node` then has no binary (its preinstall fetches it), so npm runs
 * the scripts on the machine's own Node. scripts/pinned-node.js must still run them on Node 24.
 *
 * The install is real: the repo's lockfile, `npm ci --ignore-scripts --offline` into a temporary
 * copy (npm's cache has every tarball), then the scripts are run with the machine's Node first on
 * PATH. Where that Node is already 24 or newer the launcher has nothing to fetch, and the test says
 * so instead of pretending it exercised the fetch.
 * Covers: scripts/pinned-node.js, package.json.
 */
import { execFile, spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../support/runtimes.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const exec = promisify(execFile)

/** The first `node` on PATH that is not a node_modules copy: the machine's own Node. */
function machineNode(): { dir: string; major: number } | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir || dir.includes('node_modules')) continue
    const bin = join(dir, 'node')
    if (!existsSync(bin)) continue
    const out = spawnSync(bin, ['--version'], { encoding: 'utf8' })
    if (out.status === 0) return { dir, major: Number(out.stdout.trim().slice(1).split('.')[0]) }
  }
  return undefined
}

const machine = machineNode()
let dir: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalstream-noscripts-'))
  for (
    const name of [
      'package.json',
      'package-lock.json',
      'scripts',
      'src',
      'vitest.config.ts',
      'tsconfig.json',
      'test/unit/adapter/terminal.test.ts',
      // vitest.config.ts's global setup (one temporary folder per run) and setup file (the tests' fetch).
      'test/support/temp-root.ts',
      'test/support/http-client.ts',
    ]
  ) {
    cpSync(join(ROOT, name), join(dir, name), { recursive: true })
  }
  // Only the machine's folders on PATH: nothing from this repo's node_modules (its Node 24).
  const PATH = (process.env.PATH ?? '').split(':').filter((d) => d && !d.includes('node_modules')).join(':')
  env = { ...process.env, PATH, NO_COLOR: '1', GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '', EVALSTREAM_DB: ':memory:' }
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key]
  await exec('npm', ['ci', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 })
}, 240_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('npm scripts with install scripts skipped', () => {
  it('left the pinned Node uninstalled (what this test is about)', () => {
    expect(existsSync(join(dir, 'node_modules/node/bin/node'))).toBe(false)
    expect(machine, 'a Node on PATH besides node_modules').toBeDefined()
  })

  it('npm start serves on Node 24, fetching it first when the machine Node is older', async () => {
    const port = await freePort()
    const child = spawn('npm', ['start'], { cwd: dir, env: { ...env, PORT: String(port) }, detached: true })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (b) => (stderr += b))
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (b) => {
          stdout += b
          if (stdout.includes('evalstream listening on')) resolve()
        })
        child.on('exit', (code) => reject(new Error(`npm start exited ${code}\n${stdout}\n${stderr}`)))
      })
      const health = await fetch(`http://127.0.0.1:${port}/healthz`)
      expect(await health.json()).toEqual({ ok: true })
      if (machine!.major < 24) expect(stderr).toMatch(/this is Node v\d+.*fetching node-[a-z]+-[a-z0-9]+@24\./)
      else expect(stderr).not.toContain('fetching')
    } finally {
      process.kill(-child.pid!, 'SIGTERM')
    }
  })

  it('npm run test:unit runs vitest on Node 24 (the launcher npm test uses too)', async () => {
    const { stdout } = await exec('npm', ['run', 'test:unit', '--', 'test/unit/adapter/terminal.test.ts'], {
      cwd: dir,
      env,
      maxBuffer: 16 * 1024 * 1024,
    })
    expect(stdout).toMatch(/Tests\s+\S*\s*\d+ passed/)
  })
})

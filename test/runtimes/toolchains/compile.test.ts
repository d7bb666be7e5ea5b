/**
 * One source tree, three toolchains: the project type-checks under TypeScript (tsc) and Deno, and
 * wrangler bundles the Worker as `wrangler deploy` would. Each runs as a real subprocess.
 * Covers: tsconfig.json, deno.json, wrangler.toml.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../../', import.meta.url).pathname
const BIN = join(ROOT, 'node_modules/.bin')

function run(command: string, args: string[]) {
  const result = spawnSync(join(BIN, command), args, {
    cwd: ROOT,
    encoding: 'utf8',
    // Node 24 from the `node` package first, as npm scripts have it; no telemetry from wrangler.
    env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
    timeout: 240_000,
  })
  return { code: result.status, output: `${result.stdout}\n${result.stderr}` }
}

describe('the source compiles unchanged', { timeout: 300_000 }, () => {
  it('under tsc (src, worker, tests, benchmarks)', () => {
    const { code, output } = run('tsc', ['-p', 'tsconfig.json'])
    expect(output.trim().split('\n').filter((l) => /error TS/.test(l))).toEqual([])
    expect(code).toBe(0)
  })

  it('under deno check (library, Deno adapter, Worker)', () => {
    const { code, output } = run('deno', ['check', 'src/index.ts', 'src/adapter/deno/server.ts', 'worker/index.ts'])
    expect(output).not.toMatch(/error/i)
    expect(code).toBe(0)
  })

  it('as a Worker bundle (wrangler deploy --dry-run)', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'evalstream-wrangler-'))
    try {
      const { code, output } = run('wrangler', ['deploy', '--dry-run', '--outdir', outdir])
      expect(output).toMatch(/env\.SESSIONS \(EvalSession\)\s+Durable Object/)
      expect(code).toBe(0)
    } finally {
      rmSync(outdir, { recursive: true, force: true })
    }
  })
})

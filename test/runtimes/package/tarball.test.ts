/**
 * The package as a user gets it: `npm pack` of a fresh build (made in a temporary copy, never in the
 * source tree), installed into a temporary project without the network, then used the ways the
 * README promises: every subpath imported on Node and type-checked by `tsc --noEmit` against its
 * .d.ts, `npx evalstream --version` and an `eval`, and an import from Deno through `npm:`.
 *
 * Node 22: the package's engines allow Node 22.13 (node:sqlite without a flag), so the installed bin
 * and the compiled server also run on Node 22.13.0, which `npm run setup:node22` (run by `npm test`
 * and `npm run test:runtimes`) fetched; this test reinstalls it from npm's cache only.
 *
 * Offline: a project installing the tarball with plain `npm install --offline` cannot resolve its
 * dependencies, because npm's cache holds this machine's tarballs but not the registry's version
 * lists. So the temporary project gets a lockfile made of the repo lockfile's runtime entries (the
 * same pinned versions) and `npm ci --offline` installs them from the cache.
 * Covers: package.json, tsconfig.build.json.
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnServer } from '../../support/server-process.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const SUBPATHS = Object.keys(pkg.exports).filter((k) => k !== './package.json').map((k) => `evalstream${k.slice(1)}`)
const exec = promisify(execFile)
/** The pinned Node (the one running vitest) first on PATH, so npm, npx and the bin use it. */
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  NO_COLOR: '1',
  GEMINI_API_KEY: '',
  GOOGLE_API_KEY: '',
  GOOGLE_CLOUD_PROJECT: '',
}

let dir: string
let app: string
let packed: { files: Array<{ path: string }>; size: number; filename: string }
/** Node 22.13.0's binary, or why there is none. */
let node22: { path: string } | { missing: string }

/** Node 22.13.0's binary; fails saying how to get it when the setup did not fetch it. */
function node22Path(): string {
  if ('missing' in node22) throw new Error(`no Node 22.13.0 for this test: ${node22.missing}`)
  return node22.path
}

async function sh(cmd: string, args: string[], cwd: string) {
  return exec(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 })
}

/** The project's lockfile: the tarball plus the repo lockfile's non-dev entries, versions as pinned. */
function appLockfile(tarball: string): object {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'))
  const packages: Record<string, unknown> = {
    '': { name: 'app', dependencies: { evalstream: `file:${tarball}` } },
    'node_modules/evalstream': {
      version: pkg.version,
      resolved: `file:${tarball}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
    },
  }
  for (const [key, entry] of Object.entries(lock.packages as Record<string, { dev?: boolean; devOptional?: boolean }>)) {
    if (!key.startsWith('node_modules/') || entry.dev) continue
    const { devOptional: _, ...kept } = entry
    packages[key] = kept
  }
  return { name: 'app', lockfileVersion: 3, requires: true, packages }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalstream-pack-'))
  const copy = join(dir, 'pkg')
  mkdirSync(copy)
  for (const name of ['package.json', 'bin', 'src', 'LICENSE', 'README.md', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, name), join(copy, name), { recursive: true })
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  await sh('npm', ['run', '--silent', 'build'], copy)
  // --ignore-scripts: prepack would build again; the build above is the one packed.
  const { stdout } = await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], copy)
  packed = JSON.parse(stdout)[0]
  app = join(dir, 'app')
  mkdirSync(app)
  const tarball = `../${packed.filename}`
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { evalstream: `file:${tarball}` } }),
  )
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(appLockfile(tarball)))
  await sh('npm', ['ci', '--offline', '--no-audit', '--no-fund'], app)
  node22 = await sh(process.execPath, [join(ROOT, 'test/support/setup-node22.js'), '--offline', '--print'], ROOT).then(
    ({ stdout }) => ({ path: stdout.trim() }),
    (e: { stderr?: string }) => ({ missing: e.stderr?.trim() || String(e) }),
  )
}, 240_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the packed tarball', () => {
  it('holds compiled JavaScript with .d.ts, source maps and the license, and no tests or sources', () => {
    const paths = packed.files.map((f) => f.path)
    for (
      const path of [
        'LICENSE',
        'README.md',
        'bin/evalstream.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/index.js.map',
        'dist/adapter/node/cli.js',
      ]
    ) {
      expect(paths).toContain(path)
    }
    expect(paths.filter((p) => p.startsWith('test/') || p.startsWith('src/') || /\.test\.|(^|\/)tsconfig/.test(p))).toEqual([])
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004')
    expect(pkg.private).toBeUndefined()
  })

  it('imports every subpath on Node', async () => {
    const code = SUBPATHS.map((s) => `Object.keys(await import('${s}')).length`).join(', ')
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', `console.log(JSON.stringify([${code}]))`], app)
    const counts = JSON.parse(stdout) as number[]
    expect(counts).toHaveLength(SUBPATHS.length)
    for (const n of counts) expect(n).toBeGreaterThan(0)
  })

  it('type-checks a program using every subpath against the .d.ts (tsc --noEmit, nodenext)', async () => {
    writeFileSync(
      join(app, 'check.ts'),
      [
        "import { rouge1, type RougeScore } from 'evalstream'",
        "import { EvalSet } from 'evalstream/adk'",
        "import { criterionByName } from 'evalstream/core'",
        "import { decodeAll } from 'evalstream/ingest'",
        "import { createSessionEngine } from 'evalstream/engine'",
        "import { createApp, depsFromEnv } from 'evalstream/http'",
        "const score: RougeScore = rouge1('a b', 'a b c')",
        'const n: number = score.fmeasure',
        'export { n, EvalSet, criterionByName, decodeAll, createSessionEngine, createApp, depsFromEnv }',
        // A wrong use must fail, or the check proves nothing.
        '// @ts-expect-error rouge1 takes strings',
        'rouge1(1, 2)',
      ].join('\n'),
    )
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ['check.ts'],
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    const tsc = join(ROOT, 'node_modules/.bin/tsc')
    await expect(sh(tsc, ['-p', 'tsconfig.json'], app)).resolves.toMatchObject({ stdout: '' })
  })

  it('runs the installed bin: npx evalstream --version, and an eval from a recorded run', async () => {
    expect((await sh('npx', ['--offline', 'evalstream', '--version'], app)).stdout.trim()).toBe(pkg.version)
    const evalset = join(ROOT, 'test/fixtures/weather.evalset.json')
    const events = join(ROOT, 'test/fixtures/shared/samples/adk-js-weather.sse')
    const { stdout } = await sh('npx', ['--offline', 'evalstream', 'eval', evalset, '--events', events], app)
    expect(stdout).toContain('case paris_weather_and_time: PASSED')
  })

  it('runs on Node 22.13, the oldest engines allows: the bin, an eval, and every subpath (no type stripping)', async () => {
    const node = node22Path()
    expect(pkg.engines.node).toBe('^22.13.0 || >=23.4.0')
    expect((await sh(node, ['--version'], app)).stdout.trim()).toBe('v22.13.0')
    const bin = join(app, 'node_modules/evalstream/bin/evalstream.js')
    expect((await sh(node, [bin, '--version'], app)).stdout.trim()).toBe(pkg.version)
    const evalset = join(ROOT, 'test/fixtures/weather.evalset.json')
    const events = join(ROOT, 'test/fixtures/shared/samples/adk-js-weather.sse')
    const { stdout, stderr } = await sh(node, [bin, 'eval', evalset, '--events', events], app)
    expect(stdout).toContain('case paris_weather_and_time: PASSED')
    expect(stderr).toBe('')
    const code = SUBPATHS.map((s) => `Object.keys(await import('${s}')).length`).join(', ')
    const imported = await sh(node, ['--input-type=module', '-e', `console.log(JSON.stringify([${code}]))`], app)
    expect(JSON.parse(imported.stdout)).toHaveLength(SUBPATHS.length)
  })

  it("runs the compiled server on Node 22.13 with sessions in SQLite (node:sqlite, the writer threads' modules from dist)", async () => {
    const node = node22Path()
    const db = join(dir, 'node22.db')
    const entry = join(app, 'node_modules/evalstream/dist/adapter/node/server.js')
    const start = () => spawnServer('node', { node, entry, env: { EVALSTREAM_DB: db } })
    let server = await start()
    try {
      const body = JSON.stringify({ session_id: 'on-22', eval_config: { criteria: { tool_trajectory_avg_score: 1 } } })
      const created = await fetch(`${server.baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(created.status).toBe(201)
      const events = readFileSync(join(ROOT, 'test/fixtures/shared/samples/adk-js-weather.sse'))
      const fed = await fetch(`${server.baseUrl}/v1/sessions/on-22/events`, {
        method: 'POST',
        headers: { 'content-type': 'text/event-stream' },
        body: events,
      })
      expect(fed.status).toBe(202)
      expect(server.output()).not.toMatch(/writer stopped|Cannot find module/)
      await server.stop('SIGTERM')
      // What the writer thread committed is there after a restart.
      server = await start()
      const kept = await fetch(`${server.baseUrl}/v1/sessions/on-22`)
      expect(kept.status, server.output()).toBe(200)
      expect(server.output()).not.toMatch(/writer stopped|Cannot find module/)
    } finally {
      await server.stop('SIGTERM')
    }
  })

  it('imports from Deno through npm: (resolved from the project node_modules, no network)', async () => {
    writeFileSync(join(app, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual' }))
    writeFileSync(
      join(app, 'deno-check.ts'),
      "import { rouge1 } from 'npm:evalstream'\nimport { EvalSet } from 'npm:evalstream/adk'\nconsole.log(rouge1('a b', 'a b c').fmeasure, EvalSet.safeParse({ eval_set_id: 's', eval_cases: [] }).success)\n",
    )
    const deno = join(ROOT, 'node_modules/.bin/deno')
    const { stdout } = await sh(deno, ['run', '--allow-read', '--allow-env', 'deno-check.ts'], app)
    expect(stdout.trim()).toBe('0.8 true')
  })
})

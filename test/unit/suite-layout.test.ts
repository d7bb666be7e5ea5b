/**
 * The test folders mean what vitest.config.ts says: every test file is in one project's folder
 * (a file elsewhere would silently never run), and nothing under test/unit starts a process or a
 * runtime (those belong in test/runtimes). And a test is found from what it tests: it carries the
 * name of a source file (`x.test.ts` for some `x.ts` of src/ or worker/), or a `Covers:` line in
 * its header names the files it covers, and every file a `Covers:` line names exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' ? [] : e.isDirectory() ? files(join(dir, e.name)) : [relative(ROOT, join(dir, e.name))]
  )
/**
 * Imports that start a process or a runtime (runtimes.ts loads Miniflare and esbuild; a unit test
 * takes NO_JUDGE_ENV from support/no-judge-env.ts).
 */
const PROCESS_IMPORTS = [
  /from 'node:child_process'/,
  /from 'miniflare'/,
  /support\/(?:server-process|runtimes)\.ts'/,
  /\bstart(?:Deno|Worker)\(/,
]

/** Base names (no folder, no `.ts`) of every source file. */
const SOURCE_NAMES = new Set(
  [...files(join(ROOT, 'src')), ...files(join(ROOT, 'worker'))].filter((f) => f.endsWith('.ts')).map((f) =>
    f.replace(/^.*\//, '').slice(0, -3)
  ),
)
/** The paths each `Covers:` line of a file names (the rest of the line after `Covers:`). */
export function coveredPaths(source: string): string[] {
  const path = /(?:\b(?:src|worker|bin|scripts|bench|docs|test)\/[\w./-]*|\b[\w-]+(?:\.[\w-]+)*\.(?:json|md|toml|ts)\b)/g
  return [...source.matchAll(/Covers:([^\n]*)/g)].flatMap((m) => [...m[1]!.matchAll(path)].map((p) => p[0].replace(/[.]$/, '')))
}
const SELF = relative(ROOT, import.meta.filename)
const TEST_FILES = ['test/unit', 'test/runtimes'].flatMap((dir) => files(join(ROOT, dir))).filter((f) =>
  f.endsWith('.test.ts') && f !== SELF
)

describe('test layout', () => {
  it('every test file is in test/unit, test/runtimes or test/e2e', () => {
    const strays = files(join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts') && !/^test\/(unit|runtimes|e2e)\//.test(f))
    expect(strays).toEqual([])
  })

  it('no unit test starts a process or a runtime', () => {
    const offenders = files(join(ROOT, 'test/unit'))
      .filter((f) => f.endsWith('.ts') && f !== relative(ROOT, import.meta.filename))
      .filter((f) => PROCESS_IMPORTS.some((re) => re.test(readFileSync(join(ROOT, f), 'utf8'))))
    expect(offenders).toEqual([])
  })

  it('reads Covers: lines', () => {
    expect(coveredPaths(' * Covers: src/a/b.ts (the router side), worker/ and deno.json.\n * src/d.ts')).toEqual([
      'src/a/b.ts',
      'worker/',
      'deno.json',
    ])
  })

  it('every test file is found from what it tests: by its name or a Covers: line', () => {
    const unfound = TEST_FILES.filter((f) => {
      if (SOURCE_NAMES.has(f.replace(/^.*\//, '').slice(0, -'.test.ts'.length))) return false
      return coveredPaths(readFileSync(join(ROOT, f), 'utf8')).length === 0
    })
    expect(unfound).toEqual([])
  })

  it('every file a Covers: line names exists', () => {
    const missing = TEST_FILES.flatMap((f) =>
      coveredPaths(readFileSync(join(ROOT, f), 'utf8')).filter((p) => !existsSync(join(ROOT, p))).map((p) => `${f}: ${p}`)
    )
    expect(missing).toEqual([])
  })
})

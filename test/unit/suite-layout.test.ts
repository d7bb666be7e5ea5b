/**
 * The test folders mean what vitest.config.ts says: every test file is in one project's folder
 * (a file elsewhere would silently never run), and nothing under test/unit starts a process or a
 * runtime (those belong in test/runtimes).
 */
import { readdirSync, readFileSync } from 'node:fs'
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
})

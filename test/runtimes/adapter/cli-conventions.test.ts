/**
 * The CLI's conventions as a shell sees them (child processes of bin/evalstream.js): help for the
 * whole CLI and for each command, --version, exit 2 with what and where for bad input, and JUnit
 * and Markdown reports from `eval` with stdout unchanged.
 * Covers: bin/evalstream.js, src/adapter/node/cli.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const EVALSET = join(ROOT, 'test/fixtures/weather.evalset.json')
const SAMPLE = join(ROOT, 'test/fixtures/shared/samples/adk-js-weather.sse')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const dir = mkdtempSync(join(tmpdir(), 'evalstream-cli-conventions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(args: string[]) {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin/evalstream.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '' },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('evalstream CLI conventions', () => {
  it('lists every command in its help; each command has its own --help; --version prints the version', () => {
    const help = cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^\s+eval\s/m)
    expect(help.stdout).toMatch(/^\s+run\s/m)
    expect(cli(['eval', '--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: evalstream eval EVALSET') })
    expect(cli(['run', '--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: evalstream run EVALSET') })
    expect(cli(['help', 'eval']).stdout).toContain('--junit FILE')
    expect(cli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
    expect(cli([])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('commands:') })
    expect(cli(['frobnicate']).stderr).toContain("unknown command 'frobnicate' (commands: eval, run)")
  })

  it('exits 2 naming the file for empty, garbage and wrong-format events', () => {
    const empty = join(dir, 'empty.sse')
    const garbage = join(dir, 'garbage.json')
    writeFileSync(empty, '')
    writeFileSync(garbage, 'not json at all {')
    const e = cli(['eval', EVALSET, '--events', empty])
    expect(e.code).toBe(2)
    expect(e.stderr).toContain(`evalstream: ${empty}: no events: the file is empty`)
    const g = cli(['eval', EVALSET, '--events', garbage])
    expect(g.code).toBe(2)
    expect(g.stderr).toMatch(new RegExp(`${garbage}: no ADK event found \\(1 rejected\\); event 0: invalid JSON`))
    // An eval set given as the events: JSON, but not events.
    const w = cli(['eval', EVALSET, '--events', EVALSET])
    expect(w.code).toBe(2)
    expect(w.stderr).toContain('event 0: $.author: required')
    expect(cli(['eval', EVALSET, '--events', join(dir, 'missing.sse')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing.sse: ENOENT'),
    })
  })

  it('--junit and --summary write the reports; stdout is the same table', () => {
    const junit = join(dir, 'junit.xml')
    const summary = join(dir, 'summary.md')
    const plain = cli(['eval', EVALSET, '--events', SAMPLE])
    const r = cli(['eval', EVALSET, '--events', SAMPLE, '--junit', junit, '--summary', summary])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(plain.stdout)
    expect(readFileSync(junit, 'utf8')).toContain('<testcase classname="weather" name="paris_weather_and_time"/>')
    expect(readFileSync(summary, 'utf8')).toContain('## evalstream: 1 of 1 eval case passed')
  })
})

/**
 * `evalstream run --junit FILE --summary FILE` against the loopback ADK stand-in: one test case per
 * eval case, the failing one with its trajectory's expected and actual calls, the unreachable one
 * an error; and --wait 0 against a port nobody listens on does not wait.
 * Covers: src/adapter/node/run-command.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand } from '../../../src/adapter/node/run-command.ts'
import { askingCase, CONFIG, WEATHER_TOOLS as TOOLS } from '../../support/weather-fixtures.ts'
import { startStubAgent, type StubAgent } from '../../support/stub-adk-server.ts'

const caseOf = askingCase

let dir: string
let stub: StubAgent
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalstream-run-reports-'))
  const cases = [caseOf('passes', 'Paris?'), caseOf('fails', 'Paris?', [TOOLS[1]!]), caseOf('broken', 'Paris? [500]')]
  writeFileSync(join(dir, 'mixed.evalset.json'), JSON.stringify({ eval_set_id: 'mixed', eval_cases: cases }))
  writeFileSync(join(dir, 'test_config.json'), JSON.stringify(CONFIG))
  stub = await startStubAgent()
})
afterAll(async () => {
  await stub?.close()
  rmSync(dir, { recursive: true, force: true })
})

async function run(args: string[]) {
  let out = ''
  let err = ''
  const code = await runCommand(args, {
    env: {},
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    isTTY: false,
    now: () => 1700000000,
  })
  return { code, out, err }
}

describe('evalstream run reports', () => {
  it('writes JUnit XML and appends a Markdown summary, leaving stdout as it was', async () => {
    const junit = join(dir, 'junit.xml')
    const summary = join(dir, 'summary.md')
    writeFileSync(summary, '# earlier step\n')
    const evalset = join(dir, 'mixed.evalset.json')
    const r = await run([evalset, '--agent', stub.url, '--app', 'weather', '--parallel', '1', '--junit', junit, '--summary', summary])
    expect(r.code).toBe(1)
    expect(r.out).toContain('case fails: FAILED')
    expect(r.out).not.toMatch(/<testsuite|## evalstream/)
    const xml = readFileSync(junit, 'utf8')
    expect(xml).toContain('<testsuite name="mixed" tests="3" failures="1" errors="1">')
    expect(xml).toContain('<testcase classname="mixed" name="passes"/>')
    const failing = xml.slice(xml.indexOf('name="fails"'))
    expect(failing).toContain('tool_trajectory_avg_score: score 0 below threshold 1')
    expect(failing).toContain('expected calls: get_time({&quot;city&quot;:&quot;Paris&quot;})')
    expect(failing).toContain('actual calls:   get_weather({&quot;city&quot;:&quot;Paris&quot;}), get_time(')
    expect(xml).toMatch(/name="broken">\s*<error message="[^"]*500/)
    const md = readFileSync(summary, 'utf8')
    expect(md.startsWith('# earlier step\n## evalstream: 1 of 3 eval cases passed')).toBe(true)
  })

  it('--wait 0 does not wait for an agent that is not listening; --wait takes seconds', async () => {
    const r = await run([join(dir, 'mixed.evalset.json:passes'), '--agent', 'http://127.0.0.1:9', '--app', 'weather', '--wait', '0'])
    expect(r.code).toBe(1)
    expect(r.err).not.toContain('waiting for the agent')
    expect((await run([join(dir, 'mixed.evalset.json'), '--agent', stub.url, '--app', 'w', '--wait', 'soon'])).err).toContain(
      "--wait must be a positive number of seconds, not 'soon'",
    )
    expect((await run([join(dir, 'mixed.evalset.json'), '--agent', 'localhost:8000', '--app', 'w'])).err).toContain(
      "--agent must be an http(s) URL, not 'localhost:8000'",
    )
  })
})

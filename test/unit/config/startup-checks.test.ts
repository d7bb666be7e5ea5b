/**
 * Settings that stop the start: an EVALSTREAM_CONFIG that is not an EvalConfig, an AGENT_URL that
 * is not http(s), a metrics token too short to be a secret. A config file that is not JSON is
 * refused without repeating any of its content.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv } from '../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'

const dir = mkdtempSync(join(tmpdir(), 'evalstream-startup-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const start = (env: Record<string, string>, metrics = false) =>
  depsFromEnv({ ...NO_JUDGE_ENV, ...env }, {
    store: memorySessionStore({ sweeper: 'manual' }),
    readFile: (p) => readFileSync(p, 'utf8'),
    metrics,
  })

describe('startup refusals', () => {
  it.each([
    ['{"criteria": "tool_trajectory_avg_score"}', /^EVALSTREAM_CONFIG is not an ADK EvalConfig: \$\.criteria: .*expected record/],
    ['{"criteria": {"response_match_score": "high"}}', /^EVALSTREAM_CONFIG is not an ADK EvalConfig: \$\.criteria\.response_match_score/],
    ['{"criteria": {"response_match_score": 0.8}', /^EVALSTREAM_CONFIG: it is not valid JSON/],
  ])('EVALSTREAM_CONFIG=%s stops the start', (config, why) => {
    const setup = start({ EVALSTREAM_CONFIG: config })
    expect(setup.ok).toBe(false)
    expect(!setup.ok && setup.error).toMatch(why)
  })

  it('a valid EVALSTREAM_CONFIG still starts', () => {
    expect(start({ EVALSTREAM_CONFIG: '{"criteria": {"response_match_score": 0.8}}' }).ok).toBe(true)
  })

  it('a config file that is not JSON is refused without echoing its content, whatever the file', () => {
    const file = join(dir, 'shadow')
    writeFileSync(file, 'root:$6$secrethash$abcdef:19000:0:99999:7:::\n')
    const setup = start({ EVALSTREAM_CONFIG: file })
    expect(setup.ok).toBe(false)
    const error = !setup.ok ? setup.error : ''
    expect(error).toBe(`EVALSTREAM_CONFIG (the file ${file}): it is not valid JSON; it must be an ADK EvalConfig as JSON`)
    expect(error).not.toMatch(/root|secrethash/)
    const missing = start({ EVALSTREAM_CONFIG: join(dir, 'nope.json') })
    expect(!missing.ok && missing.error).toBe(`EVALSTREAM_CONFIG: cannot read the file ${join(dir, 'nope.json')} (ENOENT)`)
  })

  it('a JSON config file whose values are wrong names the path, not the value found there', () => {
    const file = join(dir, 'secrets.json')
    writeFileSync(file, JSON.stringify({ criteria: 'sk-live-0123456789' }))
    const setup = start({ EVALSTREAM_CONFIG: file })
    expect(!setup.ok && setup.error).toMatch(/\$\.criteria/)
    expect(!setup.ok && setup.error).not.toContain('sk-live')
  })

  it.each(['file:///etc/passwd', 'ftp://agent.example.com', 'not a url', 'http://user:pw@agent.example.com'])(
    'AGENT_URL=%s stops the start',
    (url) => {
      const setup = start({ AGENT_URL: url })
      expect(setup.ok).toBe(false)
      expect(!setup.ok && setup.error).toMatch(/^AGENT_URL /)
      expect(!setup.ok && setup.error).not.toContain('pw@')
    },
  )

  it('a metrics token shorter than 32 characters stops the start; one of 32 starts', () => {
    const setup = start({ EVALSTREAM_METRICS_TOKEN: 'x' }, true)
    expect(!setup.ok && setup.error).toBe(
      'EVALSTREAM_METRICS_TOKEN has 1 characters; it needs at least 32 (generate one with: openssl rand -hex 32)',
    )
    expect(start({ EVALSTREAM_METRICS_TOKEN: 'x'.repeat(32) }, true).ok).toBe(true)
  })
})

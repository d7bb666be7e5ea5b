/** Covers: src/adapter/node/files.ts. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  evalSetResultPath,
  findTestConfig,
  findTestFiles,
  loadEvalConfigFile,
  loadEvalSetFile,
  loadEvalSetResultFile,
  writeEvalSetResultFile,
} from '../../../src/adapter/node/files.ts'
import { sharedPath } from '../../support/shared-data.ts'

const FIXTURES = sharedPath('adk-fixtures')
let dir = ''

// The fixtures laid out as in ADK's repository: an agent folder with .test.json files and a config.
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalstream-files-'))
  mkdirSync(join(dir, 'home', 'test_files'), { recursive: true })
  copyFileSync(`${FIXTURES}home_automation_agent__simple_test2.test.json`, join(dir, 'home', 'simple_test2.test.json'))
  copyFileSync(`${FIXTURES}home_automation_agent__test_config.json`, join(dir, 'home', 'test_config.json'))
  copyFileSync(
    `${FIXTURES}home_automation_agent__test_files__simple_test.test.json`,
    join(dir, 'home', 'test_files', 'simple_test.test.json'),
  )
  writeFileSync(join(dir, 'home', 'broken.json'), '{\n  "criteria": {\n    "x": 1,\n  }\n}')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Node file loaders', () => {
  it('loads a flat legacy .test.json, named after the file', async () => {
    const path = join(dir, 'home', 'simple_test2.test.json')
    const r = await loadEvalSetFile(path)
    if (!r.ok) throw new Error(r.error.message)
    expect(r.format).toBe('flat-legacy-list')
    expect(r.evalSet.eval_set_id).toBe('simple_test2')
    expect(r.evalSet.eval_cases[0]!.eval_id).toBe(path)
  })

  it('finds test_config.json beside a test file, or nothing', async () => {
    const configPath = await findTestConfig(join(dir, 'home', 'simple_test2.test.json'))
    expect(configPath).toBe(join(dir, 'home', 'test_config.json'))
    const r = await loadEvalConfigFile(configPath!)
    expect(r.ok && r.config.criteria.response_match_score?.threshold).toBe(0.3)
    expect(await findTestConfig(join(dir, 'home', 'test_files', 'simple_test.test.json'))).toBeUndefined()
  })

  it('walks a directory for .test.json files', async () => {
    expect(await findTestFiles(dir)).toEqual([
      join(dir, 'home', 'simple_test2.test.json'),
      join(dir, 'home', 'test_files', 'simple_test.test.json'),
    ])
  })

  it('names the file and the place for bad JSON', async () => {
    const path = join(dir, 'home', 'broken.json')
    const r = await loadEvalConfigFile(path)
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.message).toMatch(new RegExp(`^eval config file ${path.replace(/[.\\]/g, '\\$&')}: not valid JSON at line 4 column 3`))
    }
  })

  it('names a missing file', async () => {
    const path = join(dir, 'nope.evalset.json')
    const r = await loadEvalSetFile(path)
    expect(!r.ok && r.error.message).toBe(`eval set file ${path}: cannot be read (no such file)`)
    const c = await loadEvalConfigFile(join(dir, 'home'))
    expect(!c.ok && c.error.message).toContain('cannot be read (is a directory)')
  })

  it('writes a result where ADK keeps it, byte for byte, and reads it back', async () => {
    const text = readFileSync(`${FIXTURES}generated__weather_agent_weather_set.evalset_result.json`, 'utf8')
    const source = join(dir, 'in.json')
    writeFileSync(source, text)
    const read = await loadEvalSetResultFile(source)
    if (!read.ok) throw new Error(read.error.message)
    const path = evalSetResultPath(join(dir, 'agents'), 'weather_agent', read.result)
    expect(path).toBe(
      join(dir, 'agents', 'weather_agent', '.adk', 'eval_history', 'weather_agent_weather_set_1795312257.9031253.evalset_result.json'),
    )
    await writeEvalSetResultFile(path, read.result)
    expect(readFileSync(path, 'utf8')).toBe(text)
  })
})

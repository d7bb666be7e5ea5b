/**
 * Node file loaders for ADK's eval files. The parsing itself is pure (src/adk); this file only reads
 * and writes bytes, and turns file-system failures into the same error values, naming the file.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { parseEvalConfig, type ParseEvalConfigResult } from '../../adk/eval-config.ts'
import type { EvalSetResult } from '../../adk/results.ts'
import { parseEvalSet, type ParseEvalSetOptions, type ParseEvalSetResult } from '../../adk/parse-eval-set.ts'
import { type ParseFailure, parseJsonText, simpleParseError } from '../../adk/parse-error.ts'
import { evalSetResultJson, readEvalSetResult, type ReadEvalSetResultResult } from '../../adk/results-json.ts'

/** The file AgentEvaluator reads beside each `.test.json` (spec §1.4). */
export const TEST_CONFIG_FILE = 'test_config.json'
export const TEST_FILE_SUFFIX = '.test.json'

async function readText(path: string, what: string): Promise<{ ok: true; text: string } | ParseFailure> {
  try {
    return { ok: true, text: await readFile(path, 'utf8') }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const problem = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message
    return { ok: false, error: simpleParseError(what, path, `cannot be read (${problem})`) }
  }
}

/**
 * Loads an eval set in any format ADK reads (EvalSet, named legacy list, flat legacy list).
 * @example
 * const r = await loadEvalSetFile('tests/home.test.json')
 * if (!r.ok) console.error(r.error.message) // names the file, the JSON path and what was wrong
 */
export async function loadEvalSetFile(
  path: string,
  options: Omit<ParseEvalSetOptions, 'source'> = {},
): Promise<ParseEvalSetResult> {
  const read = await readText(path, 'eval set')
  if (!read.ok) return read
  const json = parseJsonText(read.text, 'eval set', path)
  if (!json.ok) return json
  return parseEvalSet(json.json, { ...options, source: path })
}

/**
 * Loads an EvalConfig file. Unlike ADK, which silently falls back to the default criteria when the
 * path does not exist, a missing file is an error here: a typo should not change what is measured.
 * @example const r = await loadEvalConfigFile('test_config.json'); if (r.ok) evalMetricsOf(r.config)
 */
export async function loadEvalConfigFile(path: string): Promise<ParseEvalConfigResult> {
  const read = await readText(path, 'eval config')
  if (!read.ok) return read
  const json = parseJsonText(read.text, 'eval config', path)
  if (!json.ok) return json
  return parseEvalConfig(json.json, { source: path })
}

/**
 * The `test_config.json` beside an eval set file, if there is one (AgentEvaluator's convention);
 * undefined means ADK's defaults apply (DEFAULT_EVAL_CONFIG).
 * @example const configPath = await findTestConfig('tests/fixture/home/simple.test.json')
 */
export async function findTestConfig(evalSetPath: string): Promise<string | undefined> {
  const candidate = join(dirname(evalSetPath), TEST_CONFIG_FILE)
  try {
    return (await stat(candidate)).isFile() ? candidate : undefined
  } catch {
    return undefined
  }
}

/**
 * Every `*.test.json` under a directory, recursively, sorted (AgentEvaluator.evaluate's walk).
 * A file path is returned as it is.
 * @example for (const file of await findTestFiles('tests/integration/fixture')) await loadEvalSetFile(file)
 */
export async function findTestFiles(dirOrFile: string): Promise<string[]> {
  if (!(await stat(dirOrFile)).isDirectory()) return [dirOrFile]
  const entries = await readdir(dirOrFile, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(TEST_FILE_SUFFIX))
    .map((e) => join(e.parentPath, e.name))
    .sort()
}

/** Reads an `.evalset_result.json` file (double-encoded legacy files included). */
export async function loadEvalSetResultFile(path: string): Promise<ReadEvalSetResultResult> {
  const read = await readText(path, 'eval set result')
  if (!read.ok) return read
  return readEvalSetResult(read.text, { source: path })
}

/**
 * Where ADK keeps a result: `<agents_dir>/<app>/.adk/eval_history/<eval_set_result_name>.evalset_result.json`.
 * @example evalSetResultPath('agents', 'weather_agent', result)
 */
export function evalSetResultPath(agentsDir: string, appName: string, result: EvalSetResult): string {
  const name = result.eval_set_result_name ?? result.eval_set_result_id
  return join(agentsDir, appName, '.adk', 'eval_history', `${name}.evalset_result.json`)
}

/** Writes a result file exactly as ADK would, creating its directory. Returns the path written. */
export async function writeEvalSetResultFile(path: string, result: EvalSetResult): Promise<string> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, evalSetResultJson(result), 'utf8')
  return path
}

/**
 * `evalstream run` wall time: an eval set of 50 cases (62 invocations) run against the real ADK JS
 * api_server from test/e2e/agent, with --parallel 1 and --parallel 8, as a user runs it (the CLI as
 * its own process, wall time from spawn to exit, Node start-up included).
 *
 *   npx node bench/run.bench.ts [rounds=3] [cases=50] [chunkDelayMs=200]
 *
 * Two agents: `scripted_weather_agent` (a scripted model inside the server, no model latency: the
 * time is ADK's and evalstream's own), and `weather_agent` (ADK's Gemini model class calling the
 * scripted Gemini-protocol stub over HTTP, its answer streamed in three chunks `chunkDelayMs` apart,
 * so each turn waits on a "model" the way a real run does, if far shorter than a real model). Rounds alternate the two settings. Needs:
 * npm install --prefix test/e2e/agent.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startAdkAgent } from '../test/support/adk-agent.ts'
import { WEATHER_CONFIG, weatherEvalSet } from '../test/support/weather-cases.ts'

const ROUNDS = Number(process.argv[2] ?? 3)
const CASES = Number(process.argv[3] ?? 50)
const CHUNK_DELAY_MS = Number(process.argv[4] ?? 200)
const CLI = fileURLToPath(new URL('../bin/evalstream.js', import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'evalstream-run-bench-'))
const evalSetPath = join(dir, 'weather_run.evalset.json')
const configPath = join(dir, 'config.json')
const evalSet = weatherEvalSet(CASES)
writeFileSync(evalSetPath, JSON.stringify(evalSet))
writeFileSync(configPath, JSON.stringify(WEATHER_CONFIG))
const invocations = evalSet.eval_cases.reduce((n, c) => n + c.conversation.length, 0)

/** One CLI run: wall time, exit code and the pass/fail tally it printed. */
function runCli(agentUrl: string, app: string, parallel: number): Promise<{ ms: number; code: number | null; tally: string }> {
  const started = performance.now()
  const child = spawn(process.execPath, [
    CLI,
    'run',
    evalSetPath,
    '--agent',
    agentUrl,
    '--app',
    app,
    '--config',
    configPath,
    '--parallel',
    String(parallel),
  ], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GEMINI_API_KEY: '', GOOGLE_API_KEY: '' },
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t))
  child.stderr.resume()
  return new Promise((resolve) =>
    child.on(
      'exit',
      (code) => resolve({ ms: performance.now() - started, code, tally: /Tests passed: \d+, Tests failed: \d+/.exec(out)?.[0] ?? '?' }),
    )
  )
}

/** The floor: the CLI starting and refusing its arguments (exit 2), no agent call. */
async function startupMs(): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    const child = spawn(process.execPath, [CLI, 'run'], { stdio: 'ignore' })
    await new Promise((resolve) => child.on('exit', resolve))
    times.push(performance.now() - started)
  }
  return median(times)
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const agent = await startAdkAgent({ chunkDelayMs: CHUNK_DELAY_MS })
try {
  console.log(
    `evalstream run: ${CASES} cases, ${invocations} invocations, ${ROUNDS} rounds, chunk delay ${CHUNK_DELAY_MS} ms, Node ${process.version}`,
  )
  const startup = await startupMs()
  console.log(`CLI start-up (evalstream run with no arguments, exit 2), median of 3: ${(startup / 1000).toFixed(2)} s`)
  for (const app of ['scripted_weather_agent', 'weather_agent']) {
    const times: Record<number, number[]> = { 1: [], 8: [] }
    await runCli(agent.url, app, 8) // warm-up: the server's first requests load the agent
    for (let round = 0; round < ROUNDS; round++) {
      for (const parallel of round % 2 === 0 ? [1, 8] : [8, 1]) {
        const r = await runCli(agent.url, app, parallel)
        times[parallel]!.push(r.ms)
        console.log(`  ${app} --parallel ${parallel}: ${(r.ms / 1000).toFixed(2)} s (exit ${r.code}, ${r.tally})`)
      }
    }
    const [p1, p8] = [median(times[1]!), median(times[8]!)]
    console.log(
      `${app}: median --parallel 1 ${(p1 / 1000).toFixed(2)} s, --parallel 8 ${(p8 / 1000).toFixed(2)} s, ` +
        `speed-up ${(p1 / p8).toFixed(2)}x; without start-up ${((p1 - startup) / 1000).toFixed(2)} s and ${
          ((p8 - startup) / 1000).toFixed(2)
        } s (${((p1 - startup) / (p8 - startup)).toFixed(2)}x)`,
    )
  }
} finally {
  await agent.stop()
  rmSync(dir, { recursive: true, force: true })
}

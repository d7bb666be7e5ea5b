/**
 * The shell blocks of README.md and docs/*.md run as printed. A block fenced as ```sh runnable runs
 * from the project root in bash (errexit); ```sh runnable server runs against a server started
 * first (`npm start`'s entry, sessions in memory). Every other ```sh block must say in its first
 * line (`# needs: ...`) what it needs, so none is left unexplained.
 *
 * What the test changes, and only that: the ports. Other tests and helpers share this machine, so
 * the server's :8787 and the example agent's :8000 become free ports (PORT is set for
 * `npm run example:agent`, which reads it). Everything a block starts in the background is
 * stopped with its process group; TMPDIR is a temporary folder removed afterwards.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, NO_JUDGE_ENV } from '../../support/runtimes.ts'
import { type ServerProcess, spawnServer } from '../../support/server-process.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
/** The example agent's ADK CLI (test/e2e/agent, installed by `npm run setup:e2e`). */
const AGENT_CLI = join(ROOT, 'test/e2e/agent/node_modules/@google/adk-devtools/dist/esm/cli_entrypoint.js')
/** One block may take this long (the example agent starts in a few seconds on a loaded machine). */
const BLOCK_DEADLINE_MS = 120_000

type Block = { file: string; line: number; info: string; body: string }

function shellBlocks(): Block[] {
  const blocks: Block[] = []
  for (const file of DOCS) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const m of text.matchAll(/^```(sh[^\n]*)\n([\s\S]*?)^```$/gm)) {
      blocks.push({ file, line: text.slice(0, m.index).split('\n').length, info: m[1]!.trim(), body: m[2]! })
    }
  }
  return blocks
}

const blocks = shellBlocks()
const runnable = blocks.filter((b) => /^sh runnable\b/.test(b.info))

let tmp: string
let server: ServerProcess
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'evalstream-doc-blocks-'))
  server = await spawnServer('node')
}, 60_000)
afterAll(async () => {
  await server?.stop()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** Runs one block in bash, in its own process group, stopped with everything it started. */
async function runBlock(block: Block): Promise<{ code: number | null; output: string }> {
  const agentPort = await freePort()
  const script = block.body.replaceAll('localhost:8787', `localhost:${server.port}`).replaceAll('127.0.0.1:8000', `127.0.0.1:${agentPort}`)
  const env = {
    ...process.env,
    ...NO_JUDGE_ENV,
    // The pinned Node (running vitest) first, as npm puts it for npm scripts.
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    PORT: String(agentPort),
    EVALSTREAM_DB: ':memory:',
    NO_COLOR: '1',
    TMPDIR: tmp,
  }
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, env, detached: true })
  let output = ''
  child.stdout.on('data', (b) => (output += b))
  child.stderr.on('data', (b) => (output += b))
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const deadline = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BLOCK_DEADLINE_MS)
  // bash's own exit: what it started in the background (the agent) still holds the output open.
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
  clearTimeout(deadline)
  try {
    process.kill(-child.pid!, 'SIGTERM')
  } catch {
    // Nothing of the block is left running.
  }
  await closed
  return { code, output }
}

describe('shell blocks in README and docs', () => {
  it('are runnable or say what they need', () => {
    const unexplained = blocks.filter((b) => !/^sh runnable\b/.test(b.info) && !/^# needs: \S/.test(b.body))
    expect(unexplained.map((b) => `${b.file}:${b.line}`)).toEqual([])
    expect(runnable.length).toBeGreaterThanOrEqual(4)
  })

  for (const block of runnable) {
    const needsAgent = block.body.includes('npm run example:agent')
    it.skipIf(needsAgent && !existsSync(AGENT_CLI))(`${block.file}:${block.line} runs as printed`, async () => {
      const { code, output } = await runBlock(block)
      expect(code, output.slice(-4000)).toBe(0)
      if (needsAgent) expect(output).toMatch(/Tests passed: \d+, Tests failed: 0/)
      if (block.body.includes('evalstream eval')) expect(output).toContain('case paris_weather_and_time: PASSED')
      if (block.body.includes('/end')) expect(output).toContain('"final_eval_status":1')
    }, BLOCK_DEADLINE_MS + 10_000)
  }
})

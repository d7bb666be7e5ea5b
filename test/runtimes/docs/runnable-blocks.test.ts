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
 *
 * The blocks that start the example agent also run in a fresh clone (a copy of the repo's files with
 * the root node_modules and without the agent's install), as a new user pastes them: the agent's
 * first start installs it, and `evalstream run` must wait for it. npm installs it offline there, from
 * the cache this checkout's own `npm run setup:e2e` filled, so the test reaches no registry.
 * Covers: README.md and docs/.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
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
const BLOCK_DEADLINE_MS = 300_000
/**
 * A block in a fresh clone may take this long: the agent's install (about a minute, two on a busy
 * machine) within `evalstream run`'s own wait for a loopback agent (180 s), then the run.
 */
const FRESH_CLONE_DEADLINE_MS = 240_000

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
})
afterAll(async () => {
  await server?.stop()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/**
 * A clone as `git clone` and the root `npm install` leave it: the repo's files the blocks use, the
 * root node_modules (linked), and the e2e agent's folder without its node_modules.
 */
function freshClone(): string {
  const clone = join(tmp, 'clone')
  for (const path of ['package.json', 'bin', 'scripts', 'src', 'test/support', 'test/fixtures']) {
    cpSync(join(ROOT, path), join(clone, path), { recursive: true })
  }
  const agent = join(ROOT, 'test/e2e/agent')
  const skip = new Set([join(agent, 'node_modules'), join(agent, '.setup-e2e.lock')])
  cpSync(agent, join(clone, 'test/e2e/agent'), { recursive: true, filter: (src) => !skip.has(src) })
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'))
  return clone
}

/** Runs one block in bash, in its own process group, stopped with everything it started. */
async function runBlock(
  block: Block,
  { cwd = ROOT, env: extraEnv = {}, deadlineMs = BLOCK_DEADLINE_MS }: { cwd?: string; env?: Record<string, string>; deadlineMs?: number } =
    {},
): Promise<{ code: number | null; output: string }> {
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
    ...extraEnv,
  }
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, detached: true })
  let output = ''
  child.stdout.on('data', (b) => (output += b))
  child.stderr.on('data', (b) => (output += b))
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const deadline = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), deadlineMs)
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

  for (const block of runnable.filter((b) => b.body.includes('npm run example:agent'))) {
    it.skipIf(!existsSync(AGENT_CLI))(
      `${block.file}:${block.line} runs as printed in a fresh clone (the agent not installed yet)`,
      async () => {
        const { code, output } = await runBlock(block, {
          cwd: freshClone(),
          env: {
            // The agent's packages from npm's cache only (no registry in tests).
            npm_config_offline: 'true',
            // setup:e2e also sees to Chromium for the browser tests, with apt when it is missing: not
            // this block's business.
            EVALSTREAM_CHROMIUM: process.execPath,
          },
          deadlineMs: FRESH_CLONE_DEADLINE_MS,
        })
        expect(code, output.slice(-4000)).toBe(0)
        expect(output).toContain('setup:e2e: npm ci')
        expect(output).toMatch(/Tests passed: \d+, Tests failed: 0/)
      },
      FRESH_CLONE_DEADLINE_MS + 10_000,
    )
  }
})

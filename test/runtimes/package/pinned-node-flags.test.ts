/**
 * `node scripts/pinned-node.js [--NODE-FLAG...] SCRIPT [ARGS...]`: the flags before the script are
 * the child Node's own (`npm start` gives the server its heap flags so), and what follows the
 * script is the script's.
 * Covers: scripts/pinned-node.js.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const exec = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'evalstream-pinned-'))
const script = join(dir, 'argv.mjs')
writeFileSync(script, 'console.log(JSON.stringify({ execArgv: process.execArgv, args: process.argv.slice(2) }))\n')

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('scripts/pinned-node.js', () => {
  it('passes the flags before the script to Node and the words after it to the script', async () => {
    const { stdout } = await exec(process.execPath, [
      join(ROOT, 'scripts/pinned-node.js'),
      '--max-semi-space-size=16',
      script,
      '--port',
      '1',
    ])
    expect(JSON.parse(stdout)).toEqual({ execArgv: ['--max-semi-space-size=16'], args: ['--port', '1'] })
  })

  it('without a script, prints its usage and exits 2', async () => {
    const failed = await exec(process.execPath, [join(ROOT, 'scripts/pinned-node.js'), '--max-semi-space-size=16']).catch((e) => e)
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain('usage: node scripts/pinned-node.js [--NODE-FLAG...] SCRIPT [ARGS...]')
  })

  it("the benches start the server with the flags of a checkout's npm start, none for an older one without", async () => {
    const { startFlags } = await import('../../../bench/server-flags.ts')
    const pkg = (start: string) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start } }))
    pkg('node scripts/pinned-node.js --max-semi-space-size=16 --stack-size=900 src/adapter/node/server.ts --verbose')
    expect(startFlags(dir)).toEqual(['--max-semi-space-size=16', '--stack-size=900'])
    pkg('node scripts/pinned-node.js src/adapter/node/server.ts')
    expect(startFlags(dir)).toEqual([])
  })
})

/**
 * The JSR package as `deno.json` declares it: every export names a file that exists, and
 * `deno publish --dry-run` (what `npm run check:jsr` runs) type-checks and packs it, slow types
 * refused: every exported schema has a written type. `--allow-dirty`: the check is of the working
 * tree, committed or not.
 * Runtimes project: runs deno as a child process.
 * Covers: deno.json.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const denoJson = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')) as {
  name: string
  version: string
  exports: Record<string, string>
}

describe('the JSR package', () => {
  it('names a file that exists for every export', () => {
    expect(denoJson.name).toMatch(/^@[a-z0-9-]+\/[a-z0-9-]+$/)
    expect(denoJson.version).toMatch(/^\d+\.\d+\.\d+/)
    const missing = Object.entries(denoJson.exports).filter(([, path]) => !existsSync(join(ROOT, path)))
    expect(missing).toEqual([])
  })

  it('passes deno publish --dry-run', () => {
    const deno = join(ROOT, 'node_modules/.bin/deno')
    const result = spawnSync(deno, ['publish', '--dry-run', '--allow-dirty'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    const output = `${result.stdout}${result.stderr}`
    expect(result.status, output.slice(-4000)).toBe(0)
    expect(output).toContain('Dry run complete')
  })
})

/**
 * The repository's one linter and formatter, `deno lint` and `deno fmt` (configured in deno.json;
 * docs/architecture.md says why deno's and not another), run as the CI check: `npm run lint` must
 * find nothing, and every file must be as `npm run format` writes it.
 * Runtimes project: both run deno as a child process.
 * Covers: deno.json (lint and fmt).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

function run(script: string) {
  // NO_COLOR: the findings read as plain text in a failure message.
  const result = spawnSync('npm', ['run', '--silent', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

describe('lint and format', () => {
  it('npm run lint finds nothing (deno lint, recommended rules; see deno.json)', () => {
    const lint = run('lint')
    expect(lint.output).not.toMatch(/^error\[/m)
    expect(lint.status, lint.output.slice(0, 4000)).toBe(0)
  })

  // FORMAT CHECK: passes only once the whole tree was formatted with `npm run format` (one commit of
  // its own); a file written by hand afterwards must be formatted before it lands.
  it('every file is formatted as npm run format writes it (deno fmt --check)', () => {
    const format = run('format:check')
    expect(format.status, format.output.slice(0, 4000)).toBe(0)
  })
})

/**
 * vitest globalSetup: one temporary folder per test run, made the TMPDIR of every test worker and
 * of every process a test starts (Deno, workerd, the Node server), and removed at the end. So a
 * run leaves nothing in the system's temporary folder, even when a test is stopped mid-way.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const previous = process.env.TMPDIR
  const root = mkdtempSync(join(tmpdir(), 'evalstream-tests-'))
  process.env.TMPDIR = root
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    rmSync(root, { recursive: true, force: true })
  }
}

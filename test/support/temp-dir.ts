/**
 * A temporary folder that lives as long as the test that made it: removed when the test finishes,
 * passed or failed. Call it inside a test (or a helper a test calls).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** @example const dir = testTempDir('evalstream-cli-') */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Bundles worker/index.ts for workerd with esbuild (what wrangler does), once per test run.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'

/** Miniflare 4.20260730's workerd refuses anything newer; matches wrangler.toml. */
export const COMPATIBILITY_DATE = '2026-07-30'
export const COMPATIBILITY_FLAGS = ['enable_request_signal']

/** @example const path = await bundleWorker() // /tmp/evalstream-worker-xyz/index.js */
export async function bundleWorker(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'evalstream-worker-'))
  await build({
    entryPoints: ['worker/index.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*', 'node:*'],
    outfile: join(outdir, 'index.js'),
    logLevel: 'silent',
  })
  return join(outdir, 'index.js')
}

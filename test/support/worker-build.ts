/**
 * Bundles worker/index.ts for workerd with esbuild (what wrangler does), once per test run, and the
 * Miniflare options every test and bench that serves such a bundle starts from.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { build, type BuildOptions } from 'esbuild'

/** Miniflare 4.20260730's workerd refuses anything newer; matches wrangler.toml. */
export const COMPATIBILITY_DATE = '2026-07-30'
export const COMPATIBILITY_FLAGS = ['enable_request_signal']

/** How wrangler bundles for workerd: ESM for the browser platform with workerd's conditions. */
export const WORKERD_BUILD: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2023',
  conditions: ['workerd', 'worker', 'browser'],
  external: ['cloudflare:*', 'node:*'],
  logLevel: 'silent',
}

/** @example const path = await bundleWorker() // /tmp/evalstream-worker-xyz/index.js */
export async function bundleWorker(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'evalstream-worker-'))
  await build({ ...WORKERD_BUILD, entryPoints: ['worker/index.ts'], outfile: join(outdir, 'index.js') })
  return join(outdir, 'index.js')
}

/**
 * Miniflare serving a bundle on a loopback port workerd is given by the OS (port 0, so no window in
 * which another server can take it), at wrangler.toml's compatibility date and flags.
 * @example new Miniflare({ ...servingBundle(scriptPath), durableObjects, bindings })
 */
export function servingBundle(scriptPath: string) {
  return {
    modules: true,
    scriptPath,
    // Module names are relative to this root; the bundle lives in a temp folder outside the repo.
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    host: '127.0.0.1',
    port: 0,
  }
}

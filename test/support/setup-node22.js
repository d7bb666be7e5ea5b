#!/usr/bin/env node
/**
 * `npm run setup:node22`: fetches Node 22.13.0, the oldest Node the published package supports
 * (package.json's engines), for test/runtimes/package/tarball.test.ts, which runs the installed
 * package on it. The binary comes from the npm registry package node-<os>-<arch> (no install
 * script) into node_modules/.cache/evalstream-node/v22.13.0; npm keeps its tarball in its cache,
 * so the test itself can reinstall it with `--offline` and never reaches the registry.
 *
 * `--print` prints the binary's path; `--offline` uses npm's cache only; `--warn-only` (used by
 * `npm test`) reports a failure and exits 0, so the other tests still run. Plain JavaScript: any
 * Node runs it.
 *
 * @example
 * // node test/support/setup-node22.js --warn-only
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installNodeBinary } from '../../scripts/node-binary.js'

/** The oldest Node 22 that `engines` allows: node:sqlite needs no flag from this release on. */
export const NODE22_VERSION = '22.13.0'
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const prefix = join(ROOT, 'node_modules', '.cache', 'evalstream-node', `v${NODE22_VERSION}`)

const offline = process.argv.includes('--offline')
const binary = installNodeBinary(NODE22_VERSION, prefix, { offline })
if (binary) {
  if (process.argv.includes('--print')) console.log(binary)
  process.exit(0)
}
console.error(
  `setup:node22: could not install Node ${NODE22_VERSION} into ${prefix}${
    offline ? ` from npm's cache (npm run setup:node22 fetches it)` : ''
  }; ` +
    'the package test on Node 22 will fail',
)
process.exit(process.argv.includes('--warn-only') ? 0 : 1)

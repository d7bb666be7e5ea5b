#!/usr/bin/env node
/**
 * `node scripts/pinned-node.js [--NODE-FLAG...] SCRIPT [ARGS...]`: runs SCRIPT on Node 24 or newer,
 * whatever Node npm started this with, with the Node flags given before it. Plain JavaScript that
 * any Node >= 18 can run, so `npm start` and `npm test` work after `npm ci --ignore-scripts` on a
 * machine whose own Node is older.
 *
 * The repo pins Node 24 as the devDependency `node`, but that package only fetches its binary from
 * a preinstall script; with install scripts skipped there is no Node 24 in node_modules. Then this
 * fetches the same binary package the `node` package would have fetched (node-<os>-<arch>, which
 * has no install script of its own) with npm, --prefer-offline and --ignore-scripts, into
 * node_modules/.cache/evalstream-node, and says so. The child's PATH starts with the chosen Node's
 * folder, so anything it spawns as `node` is that Node too.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { binaryPackage } from './node-binary.js'

/** The oldest Node the repo's code runs on (node:sqlite, TypeScript type stripping). */
export const MIN_NODE_MAJOR = 24

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cacheDir = join(root, 'node_modules', '.cache', 'evalstream-node')

function major(version) {
  return Number(version.replace(/^v/, '').split('.')[0])
}

function pinnedVersion() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return pkg.devDependencies?.node
}

function versionOf(binary) {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' })
  return out.status === 0 ? out.stdout.trim() : undefined
}

function findNode() {
  if (major(process.version) >= MIN_NODE_MAJOR) return process.execPath
  const exe = process.platform === 'win32' ? 'node.exe' : 'node'
  const version = pinnedVersion()
  const fetched = version ? join(cacheDir, 'node_modules', binaryPackage(version).replace(/@[^@]*$/, ''), 'bin', exe) : undefined
  for (const candidate of [join(root, 'node_modules', 'node', 'bin', exe), fetched]) {
    if (candidate && existsSync(candidate) && major(versionOf(candidate) ?? '0') >= MIN_NODE_MAJOR) return candidate
  }
  if (!version) return undefined
  const pkg = binaryPackage(version)
  process.stderr.write(
    `evalstream: this is Node ${process.version}; the code needs Node ${MIN_NODE_MAJOR}+. The pinned Node ${version} (devDependency "node") ` +
      `was not set up (its install script did not run), so fetching ${pkg} (no install script) into ${cacheDir}\n`,
  )
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const args = [
    'install',
    '--prefix',
    cacheDir,
    '--no-save',
    '--no-package-lock',
    '--ignore-scripts',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    pkg,
  ]
  const install = spawnSync(npm, args, { stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' })
  if (install.status !== 0 || !fetched || !existsSync(fetched)) return undefined
  return fetched
}

const argv = process.argv.slice(2)
// Flags before the script are the child Node's own (`npm start` sets the server's heap flags so).
const nodeFlags = []
while (argv[0]?.startsWith('--')) nodeFlags.push(argv.shift())
const [script, ...args] = argv
if (!script) {
  process.stderr.write('usage: node scripts/pinned-node.js [--NODE-FLAG...] SCRIPT [ARGS...]\n')
  process.exit(2)
}
const node = findNode()
if (!node) {
  process.stderr.write(
    `evalstream: no Node ${MIN_NODE_MAJOR}+ found or fetched; install Node ${MIN_NODE_MAJOR} or newer (this is ${process.version})\n`,
  )
  process.exit(2)
}
const PATH = [dirname(node), process.env.PATH ?? ''].join(process.platform === 'win32' ? ';' : ':')
const child = spawn(node, [...nodeFlags, script, ...args], { stdio: 'inherit', env: { ...process.env, PATH } })
// The child gets Ctrl-C from the terminal itself; a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  } else process.exit(code ?? 1)
})

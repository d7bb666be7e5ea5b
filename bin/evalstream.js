#!/usr/bin/env node
// The package's bin. Installed from npm it runs the compiled CLI in dist/ (Node 24 or newer, as
// package.json's engines declare). In a clone of the repo (src/ present, dist/ maybe stale or not
// built) it runs the TypeScript source, on this Node when it is 24 or newer (type stripping), else
// through scripts/pinned-node.js, which finds or fetches the repo's pinned Node 24.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const MIN_NODE_MAJOR = 24
const major = Number(process.versions.node.split('.')[0])
const source = fileURLToPath(new URL('../src/adapter/node/cli.ts', import.meta.url))
const launcher = fileURLToPath(new URL('../scripts/pinned-node.js', import.meta.url))

if (existsSync(source) && major < MIN_NODE_MAJOR && existsSync(launcher)) {
  const child = spawn(process.execPath, [launcher, source, ...process.argv.slice(2)], { stdio: 'inherit' })
  child.on('exit', (code) => process.exit(code ?? 1))
} else if (major < MIN_NODE_MAJOR) {
  console.error(`evalstream needs Node ${MIN_NODE_MAJOR} or newer (this is ${process.version}).`)
  process.exit(2)
} else if (existsSync(source)) {
  await import(new URL('../src/adapter/node/cli.ts', import.meta.url).href)
} else {
  await import('../dist/adapter/node/cli.js')
}

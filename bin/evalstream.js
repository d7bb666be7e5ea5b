#!/usr/bin/env node
// The package's bin. Installed from npm it runs the compiled CLI in dist/, on Node 22.13 or newer
// (package.json's engines): node:sqlite needs no flag from 22.13 (and 23.4). In a clone of the repo
// (src/ present, dist/ maybe stale or not built) it runs the TypeScript source, on this Node when it
// is 24 or newer (the repo's pinned Node, which strips the types), else through
// scripts/pinned-node.js, which finds or fetches the repo's pinned Node 24.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const SOURCE_MIN_MAJOR = 24
const [major, minor] = process.versions.node.split('.').map(Number)
/** The compiled package's Node: ^22.13.0 || >=23.4.0, as engines says. */
const packageNodeOk = major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13)
const source = fileURLToPath(new URL('../src/adapter/node/cli.ts', import.meta.url))
const launcher = fileURLToPath(new URL('../scripts/pinned-node.js', import.meta.url))

if (existsSync(source) && major < SOURCE_MIN_MAJOR && existsSync(launcher)) {
  const child = spawn(process.execPath, [launcher, source, ...process.argv.slice(2)], { stdio: 'inherit' })
  child.on('exit', (code) => process.exit(code ?? 1))
} else if (existsSync(source) && major >= SOURCE_MIN_MAJOR) {
  await import(new URL('../src/adapter/node/cli.ts', import.meta.url).href)
} else if (!packageNodeOk) {
  console.error(
    `evalstream needs Node 22.13 or newer (this is ${process.version}). Install Node 24 LTS (or 22.13+) from ` +
      `https://nodejs.org/en/download or with a version manager (nvm install 24), or run it once on a Node that ` +
      `npm fetches: npx -p node@24 -p evalstream evalstream ${process.argv.slice(2).join(' ')}`.trimEnd(),
  )
  process.exit(2)
} else {
  await import('../dist/adapter/node/cli.js')
}

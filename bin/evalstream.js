#!/usr/bin/env node
// The package's bin. Node >= 24 runs the TypeScript CLI directly (type stripping); through
// `npx evalstream` or npm scripts the Node 24 from the `node` devDependency is first on PATH.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) {
  console.error(`evalstream needs Node 24 or newer (this is ${process.version}); run it as "npx evalstream".`)
  process.exit(2)
}
await import('../src/adapter/node/cli.ts')

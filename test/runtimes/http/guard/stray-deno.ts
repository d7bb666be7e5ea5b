// The Deno server, then a stray rejection and a stray exception once it is serving.
export {}
await import('../../../../src/adapter/deno/server.ts')
setTimeout(() => void Promise.reject(new Error('stray rejection from a test')), 0)
setTimeout(() => {
  throw new Error('stray exception from a test')
}, 0)

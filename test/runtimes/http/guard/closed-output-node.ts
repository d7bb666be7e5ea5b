// The Node server with its output closed under it: on SIGUSR2 it logs a line and throws a stray
// exception (both need the closed stdout/stderr), then writes EVALSTREAM_TEST_MARKER once the
// event loop has turned again, so the test knows the guard has run and the loop is alive.
import { writeFileSync } from 'node:fs'

await import('../../../../src/adapter/node/server.ts')
process.on('SIGUSR2', () => {
  setTimeout(() => {
    console.log('a line nobody reads')
    throw new Error('stray exception after the output closed')
  }, 0)
  setTimeout(() => writeFileSync(process.env.EVALSTREAM_TEST_MARKER!, 'alive'), 50)
})

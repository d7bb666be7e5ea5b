import { defineConfig } from 'vitest/config'

/**
 * Three projects, chosen by folder so a new test file lands in the right one without editing this
 * list. `npm test` runs all three; `npm run test:unit` (seconds, no child processes or sockets
 * beyond loopback stubs), `test:runtimes` and `test:e2e` run one each.
 */

/** Tests that start a runtime or a real server process: Deno, workerd through Miniflare, the Node
 * server on a socket for the cross-runtime API suite, the three toolchains. */
export const RUNTIME_TESTS = [
  'test/deno/**/*.test.ts',
  'test/worker/**/*.test.ts',
  'test/runtimes/**/*.test.ts',
  'test/http/api-*.test.ts',
  'test/compile.test.ts',
  'test/**/*.runtime.test.ts',
]
/** A real ADK api_server (test/e2e/agent, its own ~500-package install: `npm run setup:e2e`). */
export const E2E_TESTS = ['test/e2e/**/*.test.ts']

/** The package imported by its own name resolves to the source (dist/ exists only after a build). */
const SELF_IMPORT = /^evalstream(\/(?:adk|core|ingest|engine|http))?$/

export default defineConfig({
  resolve: { alias: [{ find: SELF_IMPORT, replacement: `${import.meta.dirname}/src$1/index.ts` }] },
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...RUNTIME_TESTS, ...E2E_TESTS] },
      },
      { extends: true, test: { name: 'runtimes', include: RUNTIME_TESTS } },
      { extends: true, test: { name: 'e2e', include: E2E_TESTS } },
    ],
  },
})

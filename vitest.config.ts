import { defineConfig } from 'vitest/config'

/**
 * Three projects, chosen by folder only, so a new test file lands in the right one by where it is
 * put. `npm test` runs all three; `npm run test:unit`, `test:runtimes` and `test:e2e` run one each.
 *
 * - test/unit: in process only. No child process, no server socket beyond in-process loopback
 *   stubs, no real-time waits (clocks and deadlines are injected). Seconds.
 * - test/runtimes: anything that starts a runtime or a server process: Deno, workerd through
 *   Miniflare, the Node server on a socket, the CLI as a process, the three toolchains.
 * - test/e2e: a real ADK api_server (test/e2e/agent, its own ~500-package install: `npm run setup:e2e`).
 *
 * Seeded property and fuzz runs live in test/unit/fuzz with a small default count; FUZZ_RUNS
 * raises it for a long run (docs/testing.md).
 */
export const UNIT_TESTS = ['test/unit/**/*.test.ts']
export const RUNTIME_TESTS = ['test/runtimes/**/*.test.ts']
export const E2E_TESTS = ['test/e2e/**/*.test.ts']

/** The package imported by its own name resolves to the source (dist/ exists only after a build). */
const SELF_IMPORT = /^evalstream(\/(?:adk|core|ingest|engine|http))?$/

export default defineConfig({
  resolve: {
    alias: [{ find: /^evalstream\/http$/, replacement: `${import.meta.dirname}/src/http.ts` }, {
      find: SELF_IMPORT,
      replacement: `${import.meta.dirname}/src$1/index.ts`,
    }],
  },
  test: {
    // A timeout catches a hang; it is not a speed check. On a machine with every core busy a test
    // that spawns runtimes takes ten times its quiet time, so the bounds are far above any quiet
    // run (the unit project's in-process tests keep a tighter one).
    testTimeout: 300_000,
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, which leaves a
    // core idle while a runtime test waits for the process it started. Two workers use both.
    maxWorkers: 2,
    hookTimeout: 600_000,
    // Every temporary file of a run (tests and the processes they start) under one folder, removed at the end.
    globalSetup: ['test/support/temp-root.ts'],
    // Test clients close idle connections before any server does (test/support/http-client.ts).
    setupFiles: ['test/support/http-client.ts'],
    projects: [
      // One module graph per worker for unit tests (isolate: false): importing the app once instead of
      // once per file cuts the project's CPU time by about two thirds. Unit tests therefore keep no
      // state in modules and restore what they change (fake timers, env).
      { extends: true, test: { name: 'unit', include: UNIT_TESTS, isolate: false, testTimeout: 120_000 } },
      { extends: true, test: { name: 'runtimes', include: RUNTIME_TESTS } },
      { extends: true, test: { name: 'e2e', include: E2E_TESTS } },
    ],
  },
})

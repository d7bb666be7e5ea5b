/**
 * The environment that keeps every judge unconfigured, in a module of its own: unit tests take it
 * from here, not from runtimes.ts, whose imports (Miniflare, esbuild, the process helpers) cost
 * each test worker about half a second of CPU to load and are no business of an in-process test.
 */
import type { Env } from '../../src/config/setup.ts'

/** Judge variables are blanked so no test can reach a real model. */
export const NO_JUDGE_ENV: Env = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GOOGLE_CLOUD_PROJECT: '', GOOGLE_CLOUD_LOCATION: '' }

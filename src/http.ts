/**
 * `evalstream/http`: the evalstream HTTP API as a Hono app, with the in-memory session store and the
 * environment setup every runtime adapter uses. Bring your own server (`app.fetch`). Re-exports only.
 *
 * @example
 * import { createApp, depsFromEnv, memorySessionStore } from 'evalstream/http'
 * const setup = depsFromEnv({}, { store: memorySessionStore() })
 * if (setup.ok) Deno.serve(createApp(setup.deps).fetch)
 */
export { type AppDeps, createApp } from './http/app.ts'
export { memorySessionStore, type SessionStore } from './session/store.ts'
export { depsFromEnv, type Env, type Setup } from './config/setup.ts'
export { limitsFromEnv } from './config/ingest-limits.ts'
// depsFromEnv's `geminiClient`: the SDK's client for Vertex AI (the default client speaks the Gemini API over fetch).
export { createGeminiClient } from './judge/gemini-client.ts'

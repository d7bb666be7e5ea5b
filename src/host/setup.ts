/**
 * Builds the app's dependencies from environment variables, the same way on every runtime. The
 * adapters pass in what only they can do: reading a file, the env record, the session store.
 */
import { createSessionEngine } from '../engine/session-engine.ts'
import type { JudgeCache } from '../judge/cache.ts'
import type { AppDeps } from './deps.ts'
import { judgeWiringFromEnv } from './judge-wiring.ts'
import { proxySettingsFromEnv } from './proxy-settings.ts'
import type { EngineFactory } from './session.ts'
import type { SessionStore } from './session-store.ts'

export type Env = Record<string, string | undefined>

export type Setup = { ok: true; deps: AppDeps; notes: string[] } | { ok: false; error: string }

/**
 * @example
 * const setup = depsFromEnv(process.env, { store: memorySessionStore(), readFile: (p) => readFileSync(p, 'utf8') })
 */
export function depsFromEnv(
  env: Env,
  host: { store: SessionStore; readFile?: (path: string) => string; fetch?: typeof fetch; judgeCache?: JudgeCache },
): Setup {
  const config = readConfig(env.EVALSTREAM_CONFIG, host.readFile)
  if (!config.ok) return config
  const wiring = judgeWiringFromEnv(env, { cache: host.judgeCache })
  if (!wiring.ok) return wiring
  const notes = [...wiring.notes]
  const proxy = proxySettingsFromEnv(env)
  if (!proxy.ok) return proxy
  const agentUrl = env.AGENT_URL?.trim() || undefined
  if (agentUrl) {
    try {
      new URL(agentUrl)
    } catch {
      return { ok: false, error: `AGENT_URL is not a URL: '${agentUrl}'` }
    }
    notes.push(`proxy mode: /run_sse and ADK routes go to ${agentUrl}`)
  }
  const createEngine: EngineFactory = (options) =>
    createSessionEngine({ ...options, ...wiring.judging(options.spec.session_id) })
  return {
    ok: true,
    notes,
    deps: { store: host.store, createEngine, defaultConfig: config.value, agentUrl, fetch: host.fetch, proxy: proxy.settings },
  }
}

/** EVALSTREAM_CONFIG is inline JSON (starts with `{`) or a path to a JSON file. */
export function readConfig(
  raw: string | undefined,
  readFile?: (path: string) => string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = raw?.trim()
  if (!text) return { ok: true, value: undefined }
  let json = text
  if (!text.startsWith('{')) {
    if (!readFile) return { ok: false, error: 'EVALSTREAM_CONFIG must be inline JSON here (no file system)' }
    try {
      json = readFile(text)
    } catch (e) {
      return { ok: false, error: `EVALSTREAM_CONFIG: cannot read ${text}: ${(e as Error).message}` }
    }
  }
  try {
    return { ok: true, value: JSON.parse(json) }
  } catch (e) {
    return { ok: false, error: `EVALSTREAM_CONFIG is not valid JSON: ${(e as Error).message}` }
  }
}

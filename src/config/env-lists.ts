/**
 * Lists and switches in the environment: `key=value,key=value` lists
 * (the format OpenTelemetry uses for OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES).
 */
import type { Env, Read } from './env.ts'

/** Pairs at most in one list variable: a header or resource list is short, a longer one is a mistake. */
export const MAX_ENV_LIST_PAIRS = 64

/**
 * `k1=v1,k2=v2` with percent-encoded values (W3C baggage style), as OpenTelemetry specifies.
 * @example keyValueList({ H: 'api-key=a%20b' }, 'H') // { ok: true, value: [['api-key', 'a b']] }
 */
export function keyValueList(env: Env, name: string): Read<Array<[string, string]>> {
  const raw = env[name]?.trim()
  if (!raw) return { ok: true, value: [] }
  const parts = raw.split(',').filter((p) => p.trim() !== '')
  if (parts.length > MAX_ENV_LIST_PAIRS) {
    return { ok: false, error: `${name} has ${parts.length} entries; at most ${MAX_ENV_LIST_PAIRS} (MAX_ENV_LIST_PAIRS)` }
  }
  const out: Array<[string, string]> = []
  for (const [i, part] of parts.entries()) {
    const eq = part.indexOf('=')
    const key = eq > 0 ? part.slice(0, eq).trim() : ''
    if (!key) return { ok: false, error: `${name}: entry ${i + 1} ('${part.trim()}') is not key=value` }
    try {
      out.push([key, decodeURIComponent(part.slice(eq + 1).trim())])
    } catch {
      return { ok: false, error: `${name}: the value of '${key}' is not valid percent-encoding` }
    }
  }
  return { ok: true, value: out }
}

/** '1', 'true', 'yes', 'on' (any case) are on. */
export function flag(env: Env, name: string): boolean {
  return /^(1|true|yes|on)$/i.test(env[name]?.trim() ?? '')
}

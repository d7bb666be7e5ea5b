/**
 * Who may call the API, and from which browser origins, from EVALSTREAM_TOKENS and
 * EVALSTREAM_CORS_ORIGINS (parsed by src/http/auth-config.ts). A malformed value stops the start.
 */
import { type Authenticator, type CorsSettings, createAuthenticator, parseCorsOrigins, parseTokens } from '../http/auth-config.ts'
import type { Env, Read } from './env.ts'

export type AccessConfig = { auth?: Authenticator; cors?: CorsSettings; notes: string[] }

/**
 * Reads EVALSTREAM_TOKENS and EVALSTREAM_CORS_ORIGINS.
 * @example
 * const access = accessFromEnv({ EVALSTREAM_TOKENS: 'acme:' + 'a'.repeat(32) })
 * if (access.ok) await access.value.auth?.verify('a'.repeat(32)) // 'acme'
 */
export function accessFromEnv(env: Env): Read<AccessConfig> {
  const tokens = parseTokens(env.EVALSTREAM_TOKENS)
  if (!tokens.ok) return tokens
  const cors = parseCorsOrigins(env.EVALSTREAM_CORS_ORIGINS)
  if (!cors.ok) return cors
  const notes: string[] = []
  let auth: Authenticator | undefined
  if (tokens.value.length === 0) {
    notes.push('auth: OPEN, no EVALSTREAM_TOKENS set: anyone who can reach this server can read, feed and end every session')
  } else {
    auth = createAuthenticator(tokens.value)
    notes.push(`auth: bearer tokens required (${tokens.value.length} token(s), tenants: ${auth.tenants.join(', ')})`)
  }
  if (cors.value) {
    const origins = cors.value.origins === '*' ? 'any origin' : cors.value.origins.join(', ')
    notes.push(`CORS: browsers may call this API from ${origins}`)
  }
  return { ok: true, value: { ...(auth ? { auth } : {}), ...(cors.value ? { cors: cors.value } : {}), notes } }
}

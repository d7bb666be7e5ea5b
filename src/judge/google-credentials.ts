/**
 * Credentials for Google's REST APIs without a Google SDK, so they work on Node, Deno and Workers:
 * an API key (sent as `x-goog-api-key`), a ready OAuth access token, or a service account's JSON
 * key exchanged for an access token (an RS256-signed JWT assertion, signed with WebCrypto, posted
 * to the key's `token_uri`). Exchanged tokens are reused until a minute before they expire.
 */

import { readCappedText } from './capped-body.ts'

/** The OAuth scope Vertex AI calls need. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'
/** Lifetime asked for an exchanged token: Google's maximum, one hour. */
const ASSERTION_LIFETIME_S = 3600
/** A token is renewed this long before it expires, so no call goes out with one about to lapse. */
const RENEW_BEFORE_MS = 60_000
/** An OAuth token answer is a few hundred bytes; a token endpoint sending more is not read further. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024

export type ServiceAccountKey = { client_email: string; private_key: string; token_uri: string }

export type GoogleCredentials =
  | { kind: 'api-key'; apiKey: string }
  | { kind: 'access-token'; token: string }
  | { kind: 'service-account'; key: ServiceAccountKey }

/**
 * Parse a service account JSON key; an error text says which field is wrong.
 * @example parseServiceAccount('{"client_email":"a@p.iam.gserviceaccount.com","private_key":"-----BEGIN PRIVATE KEY-----..."}')
 */
export function parseServiceAccount(text: string): ServiceAccountKey | string {
  let json: Record<string, unknown>
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {
    return 'GOOGLE_SERVICE_ACCOUNT_JSON is not JSON'
  }
  if (typeof json !== 'object' || json === null) return 'GOOGLE_SERVICE_ACCOUNT_JSON must be a JSON object'
  if (typeof json.client_email !== 'string') return 'GOOGLE_SERVICE_ACCOUNT_JSON has no client_email'
  if (typeof json.private_key !== 'string' || !json.private_key.includes('PRIVATE KEY')) {
    return 'GOOGLE_SERVICE_ACCOUNT_JSON has no PEM private_key'
  }
  const tokenUri = typeof json.token_uri === 'string' ? json.token_uri : 'https://oauth2.googleapis.com/token'
  return { client_email: json.client_email, private_key: json.private_key, token_uri: tokenUri }
}

function base64url(bytes: Uint8Array | string): string {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes
  let binary = ''
  for (const b of data) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function pemToPkcs8(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '')
  const binary = atob(body)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** The signed JWT assertion a service account exchanges for an access token (RFC 7523). */
export async function signedAssertion(key: ServiceAccountKey, nowMs: number, scope = CLOUD_PLATFORM_SCOPE): Promise<string> {
  const iat = Math.floor(nowMs / 1000)
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))
  const claims = base64url(JSON.stringify({ iss: key.client_email, scope, aud: key.token_uri, iat, exp: iat + ASSERTION_LIFETIME_S }))
  const cryptoKey = await crypto.subtle.importKey(
    'pkcs8',
    pemToPkcs8(key.private_key),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', cryptoKey, new TextEncoder().encode(`${header}.${claims}`))
  return `${header}.${claims}.${base64url(new Uint8Array(signature))}`
}

/** Request headers that authenticate one call; rejects with a clear message when they cannot be had. */
export type AuthHeaders = () => Promise<Record<string, string>>

/**
 * @example
 * const auth = authHeaders({ kind: 'access-token', token: 'ya29...' })
 * await auth() // { authorization: 'Bearer ya29...' }
 */
export function authHeaders(credentials: GoogleCredentials, deps: { fetch?: typeof fetch; now?: () => number } = {}): AuthHeaders {
  if (credentials.kind === 'api-key') return () => Promise.resolve({ 'x-goog-api-key': credentials.apiKey })
  if (credentials.kind === 'access-token') return () => Promise.resolve({ authorization: `Bearer ${credentials.token}` })
  const key = credentials.key
  const doFetch = deps.fetch ?? fetch
  const now = deps.now ?? Date.now
  let cached: { token: string; expiresAtMs: number } | undefined
  let pending: Promise<string> | undefined
  async function exchange(): Promise<string> {
    const assertion = await signedAssertion(key, now())
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion })
    const res = await doFetch(key.token_uri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
    const read = await readCappedText(res, MAX_TOKEN_ANSWER_BYTES)
    if (!read.ok) {
      throw new Error(`service account token exchange answered more than ${MAX_TOKEN_ANSWER_BYTES} bytes (MAX_TOKEN_ANSWER_BYTES)`)
    }
    const text = read.text
    if (!res.ok) throw new Error(`service account token exchange failed (${res.status}): ${text.slice(0, 200)}`)
    const json = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown }
    if (typeof json.access_token !== 'string') throw new Error('service account token exchange returned no access_token')
    const lifetimeS = typeof json.expires_in === 'number' ? json.expires_in : ASSERTION_LIFETIME_S
    cached = { token: json.access_token, expiresAtMs: now() + lifetimeS * 1000 }
    return json.access_token
  }
  return async () => {
    if (!cached || now() >= cached.expiresAtMs - RENEW_BEFORE_MS) {
      // Concurrent calls share one exchange.
      pending ??= exchange().finally(() => (pending = undefined))
      await pending
    }
    return { authorization: `Bearer ${(cached as { token: string }).token}` }
  }
}

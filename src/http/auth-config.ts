/**
 * Who may call the API, and from which browser origins: bearer tokens per tenant
 * (EVALSTREAM_TOKENS) and CORS (EVALSTREAM_CORS_ORIGINS), parsed once at start. A malformed value
 * stops the server with a message naming the entry, never the secret: a typo must not leave the
 * service open. Tokens are checked by comparing SHA-256 digests in constant time (WebCrypto, so the
 * same code runs on Node, Deno and Workers).
 */

/** A tenant name: it prefixes proxy session ids (`acme:<adk id>`), so no `:`. */
export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** RFC 6750 b64token: what can follow `Bearer ` in an Authorization header. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/

/** Shortest token accepted in the configuration (characters): 32 hex digits are 128 bits. */
export const MIN_TOKEN_CHARS = 32

/** Longest token, configured or presented (characters); a longer one is refused without hashing. */
export const MAX_TOKEN_CHARS = 1024

/** How long a browser may cache a CORS preflight answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600

/** Checks presented bearer tokens against the configured ones. */
export type Authenticator = {
  /** The configured tenants, for the start-up note. */
  readonly tenants: readonly string[]
  /** The tenant whose token this is, or undefined. Takes the same time whichever token matches. */
  verify(token: string): Promise<string | undefined>
}

/** `'*'` allows every origin; otherwise the exact origins allowed. */
export type CorsSettings = { origins: '*' | string[] }

export type TokenEntry = { tenant: string; token: string }

/**
 * `tenant:token` entries separated by commas (whitespace around entries ignored). Unset or blank
 * means no tokens (open). A tenant may have several tokens (rotation); a token names one tenant.
 * @example parseTokens('acme:' + 'x'.repeat(32)) // { ok: true, value: [{ tenant: 'acme', token: 'xx…' }] }
 */
export function parseTokens(raw: string | undefined): { ok: true; value: TokenEntry[] } | { ok: false; error: string } {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: [] }
  const entries: TokenEntry[] = []
  const seen = new Set<string>()
  const parts = raw.split(',')
  for (const [i, part] of parts.entries()) {
    const where = `EVALSTREAM_TOKENS entry ${i + 1} of ${parts.length}`
    const entry = part.trim()
    const colon = entry.indexOf(':')
    if (entry === '') return fail(`${where} is empty; the format is tenant:token,tenant:token`)
    if (colon < 0) return fail(`${where} has no ':'; the format is tenant:token,tenant:token`)
    const tenant = entry.slice(0, colon)
    const token = entry.slice(colon + 1)
    // Messages name the tenant, never the token: start-up errors end up in logs.
    if (!TENANT_PATTERN.test(tenant)) return fail(`${where}: tenant '${tenant.slice(0, 80)}' must be 1-64 characters of A-Z a-z 0-9 _ -`)
    if (token.length < MIN_TOKEN_CHARS || token.length > MAX_TOKEN_CHARS) {
      return fail(
        `${where} (tenant '${tenant}'): the token has ${token.length} characters; it needs ${MIN_TOKEN_CHARS} to ${MAX_TOKEN_CHARS}`,
      )
    }
    if (!TOKEN_PATTERN.test(token)) {
      return fail(`${where} (tenant '${tenant}'): the token may only hold A-Z a-z 0-9 - . _ ~ + / and trailing =`)
    }
    if (seen.has(token)) return fail(`${where} (tenant '${tenant}'): the same token appears twice; each token names one tenant`)
    seen.add(token)
    entries.push({ tenant, token })
  }
  return { ok: true, value: entries }
}

/**
 * Comma-separated origins (`https://dash.example.com`), or `*`. Unset or blank: no CORS headers,
 * so browsers refuse cross-origin calls.
 * @example parseCorsOrigins('https://dash.example.com') // { ok: true, value: { origins: ['https://dash.example.com'] } }
 */
export function parseCorsOrigins(raw: string | undefined): { ok: true; value?: CorsSettings } | { ok: false; error: string } {
  const text = raw?.trim()
  if (!text) return { ok: true }
  if (text === '*') return { ok: true, value: { origins: '*' } }
  const origins: string[] = []
  const parts = text.split(',')
  for (const [i, part] of parts.entries()) {
    const origin = part.trim().replace(/\/$/, '')
    const where = `EVALSTREAM_CORS_ORIGINS entry ${i + 1} of ${parts.length} ('${origin.slice(0, 200)}')`
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      return fail(`${where} is not an origin; write scheme://host[:port], or * alone for any origin`)
    }
    // Browsers send the origin exactly in this form; anything else (a path, a query) would never match.
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      return fail(`${where} is not an origin; write scheme://host[:port] with http or https and nothing after it`)
    }
    origins.push(origin)
  }
  return { ok: true, value: { origins } }
}

/**
 * The configured tokens as SHA-256 digests (computed on first use: WebCrypto is async, start-up
 * is not). A presented token is hashed and compared with every digest, all bytes, no early exit.
 * @example const auth = createAuthenticator([{ tenant: 'acme', token }]); await auth.verify(token) // 'acme'
 */
export function createAuthenticator(entries: readonly TokenEntry[]): Authenticator {
  let digests: Promise<Array<{ tenant: string; digest: Uint8Array }>> | undefined
  const tenants = [...new Set(entries.map((e) => e.tenant))]
  return {
    tenants,
    async verify(token) {
      if (token.length === 0 || token.length > MAX_TOKEN_CHARS) return undefined
      digests ??= Promise.all(entries.map(async (e) => ({ tenant: e.tenant, digest: await sha256(e.token) })))
      const presented = await sha256(token)
      let tenant: string | undefined
      for (const entry of await digests) if (sameBytes(entry.digest, presented)) tenant ??= entry.tenant
      return tenant
    },
  }
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}

/** Constant time for equal lengths (digests always are): every byte is looked at. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0)
  return diff === 0
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error }
}

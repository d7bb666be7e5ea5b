/**
 * Webhook signatures: `X-Evalstream-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`
 * keyed with the webhook's secret, `X-Evalstream-Timestamp: <unix seconds>`. Signing the timestamp
 * with the body lets a receiver refuse an old POST replayed at it (WEBHOOK_TOLERANCE_S).
 * Web Crypto only, so the same code signs on Node, Deno and workerd.
 */

export const SIGNATURE_HEADER = 'x-evalstream-signature'
export const TIMESTAMP_HEADER = 'x-evalstream-timestamp'
/** The delivery's idempotency id (`<session id>/<result key>`), the same on every retry. */
export const DELIVERY_ID_HEADER = 'x-evalstream-delivery'
/** How old a signed timestamp may be (seconds) before verifyWebhook refuses it. */
export const WEBHOOK_TOLERANCE_S = 300

const utf8 = new TextEncoder()

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(text)))
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * @example await signWebhook('s3cret-s3cret-s3cret', 1767225600, '{"id":"s1/case"}') // 'sha256=…'
 */
export async function signWebhook(secret: string, timestampS: number, body: string): Promise<string> {
  return `sha256=${await hmacHex(secret, `${timestampS}.${body}`)}`
}

/**
 * What a receiver does (docs/webhooks.md has a standalone version): recompute, compare in
 * constant time, refuse stale timestamps.
 * @example await verifyWebhook(secret, headers.get('x-evalstream-timestamp'), headers.get('x-evalstream-signature'), body)
 */
export async function verifyWebhook(
  secret: string,
  timestamp: string | null,
  signature: string | null,
  body: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<{ ok: true } | { ok: false; error: string }> {
  const ts = Number(timestamp)
  if (!timestamp || !Number.isSafeInteger(ts)) return { ok: false, error: 'no timestamp' }
  if (Math.abs(nowS - ts) > WEBHOOK_TOLERANCE_S) {
    return { ok: false, error: `timestamp ${ts} is more than ${WEBHOOK_TOLERANCE_S} s from now` }
  }
  const expected = await signWebhook(secret, ts, body)
  if (!signature || signature.length !== expected.length) return { ok: false, error: 'signature mismatch' }
  let diff = 0
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ signature.charCodeAt(i)
  return diff === 0 ? { ok: true } : { ok: false, error: 'signature mismatch' }
}

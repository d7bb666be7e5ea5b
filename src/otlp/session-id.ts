/**
 * The ids of OTLP-born sessions. Every monitored conversation scores into `otlp-<conversation>`
 * (`<tenant>:otlp-<conversation>` with tenants), and that prefix belongs to the OTLP monitor alone:
 * a client-chosen id in it would either take a conversation's session before its first trace
 * arrives or have a trace land in a session someone else pushed to, so clients may not create one.
 */

/** The prefix (after any `<tenant>:`) of every session the OTLP monitor opens. */
export const OTLP_SESSION_PREFIX = 'otlp-'

/**
 * The session a conversation scores into: `otlp-<conversation>`, under the tenant's `<tenant>:`
 * namespace when there is one. A conversation id that is not URL-safe is replaced by a hash of it.
 * @example otlpSessionId('acme', 'c0ffee') // 'acme:otlp-c0ffee'
 */
export function otlpSessionId(tenant: string | undefined, conversation: string): string {
  const safe = /^[A-Za-z0-9._~-]{1,150}$/.test(conversation) ? conversation : `h${fnv1a(conversation)}`
  return tenant === undefined ? `${OTLP_SESSION_PREFIX}${safe}` : `${tenant}:${OTLP_SESSION_PREFIX}${safe}`
}

/**
 * Whether an id is in the monitor's namespace: `otlp-` at its start or right after its first `:`.
 * @example isOtlpSessionId('acme:otlp-c0ffee') // true
 */
export function isOtlpSessionId(sessionId: string): boolean {
  const colon = sessionId.indexOf(':')
  return sessionId.startsWith(OTLP_SESSION_PREFIX, colon + 1)
}

/**
 * Why a client may not create (or attach the proxy to) this id, or undefined when it may.
 * @example otlpReservedIdProblem('otlp-x') // "session ids starting with 'otlp-' ... are reserved ..."
 */
export function otlpReservedIdProblem(sessionId: string | undefined): string | undefined {
  if (sessionId === undefined || !isOtlpSessionId(sessionId)) return undefined
  return `session '${sessionId}': ids starting with '${OTLP_SESSION_PREFIX}' (after any '<tenant>:') are reserved for ` +
    `the sessions the OTLP monitor opens for traced conversations (POST /v1/traces); choose another id`
}

function fnv1a(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0
    b = Math.imul(b ^ text.charCodeAt(i), 0x85ebca6b) >>> 0
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0')
}

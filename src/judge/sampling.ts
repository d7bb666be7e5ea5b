/**
 * Deterministic session sampling: whether a session is judged depends only on its id and the
 * rate, so every runtime, every replica and every replay agree, with no Math.random involved.
 */

/** FNV-1a (32-bit) over the UTF-8 bytes of `text`: small, fast and identical everywhere. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash >>> 0
}

/** The session id's fixed position in [0, 1). */
export function sessionFraction(sessionId: string): number {
  return fnv1a32(sessionId) / 2 ** 32
}

/**
 * True when a session falls inside the sampled fraction `rate` (0 = none, 1 = all).
 * @example
 * shouldJudgeSession('session-42', 0.1) // the same answer on Node, Deno and Workers
 */
export function shouldJudgeSession(sessionId: string, rate: number): boolean {
  if (!(rate > 0)) return false
  if (rate >= 1) return true
  return sessionFraction(sessionId) < rate
}

/**
 * Stable judge request ids: a hash of (metric, invocation key, step, prompt). Same inputs give the
 * same id on every runtime and every replay, so a Durable Object that stored an answer under its id
 * never pays for that judge call twice. No randomness, no clock.
 */

const FNV_OFFSET = 0xcbf29ce484222325n
const FNV_PRIME = 0x100000001b3n
const MASK_64 = (1n << 64n) - 1n
const encoder = new TextEncoder()

/**
 * 64-bit FNV-1a of the UTF-8 bytes, as 16 hex digits. Not cryptographic: ids only need to be stable
 * and unlikely to collide within one session.
 * @example fnv1a64('') // 'cbf29ce484222325'
 */
export function fnv1a64(text: string): string {
  let hash = FNV_OFFSET
  for (const byte of encoder.encode(text)) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64
  return hash.toString(16).padStart(16, '0')
}

/**
 * The id of one judge request. Fields are joined with NUL, which none of them contains in practice,
 * so ('a', 'bc') and ('ab', 'c') hash differently.
 * @example judgeRequestId('final_response_match_v2', 's1/0', 'verdict', 'prompt text') // 'final_response_match_v2:verdict:…'
 */
export function judgeRequestId(metric: string, invocationKey: string, step: string, prompt: string): string {
  return `${metric}:${step}:${fnv1a64([metric, invocationKey, step, prompt].join('\u0000'))}`
}

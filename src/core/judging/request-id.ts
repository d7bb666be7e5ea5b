/**
 * Stable judge request ids: a hash of (metric, invocation key, step, prompt). Same inputs give the
 * same id on every runtime and every replay, so a Durable Object that stored an answer under its id
 * never pays for that judge call twice. No randomness, no clock.
 */

// 64-bit FNV-1a in four 16-bit limbs, least significant first: plain numbers never leave 2^27, so
// the hash costs a few integer operations per byte, not a BigInt allocation (a prompt can hold a
// megabyte of untrusted event text). The offset basis 0xcbf29ce484222325 and the prime
// 0x100000001b3 (= 2^40 + 0x1b3) are FNV's.
const OFFSET_LIMBS = [0x2325, 0x8422, 0x9ce4, 0xcbf2] as const
const PRIME_LOW = 0x1b3
/** 2^40 is 2^8 in the third limb. */
const PRIME_HIGH = 0x100

/** The UTF-8 bytes of `text`, as TextEncoder writes them (a lone surrogate as U+FFFD), one at a time. */
function forEachUtf8Byte(text: string, visit: (byte: number) => void): void {
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
        i++
      } else code = 0xfffd
    }
    if (code < 0x80) visit(code)
    else if (code < 0x800) {
      visit(0xc0 | (code >> 6))
      visit(0x80 | (code & 0x3f))
    } else if (code < 0x10000) {
      visit(0xe0 | (code >> 12))
      visit(0x80 | ((code >> 6) & 0x3f))
      visit(0x80 | (code & 0x3f))
    } else {
      visit(0xf0 | (code >> 18))
      visit(0x80 | ((code >> 12) & 0x3f))
      visit(0x80 | ((code >> 6) & 0x3f))
      visit(0x80 | (code & 0x3f))
    }
  }
}

/**
 * 64-bit FNV-1a of the UTF-8 bytes, as 16 hex digits. Not cryptographic: ids only need to be stable
 * and unlikely to collide within one session.
 * @example fnv1a64('') // 'cbf29ce484222325'
 */
export function fnv1a64(text: string): string {
  let [h0, h1, h2, h3] = OFFSET_LIMBS as readonly number[] as [number, number, number, number]
  forEachUtf8Byte(text, (byte) => {
    h0 ^= byte
    // (h * prime) mod 2^64, limb by limb with carries.
    const t0 = h0 * PRIME_LOW
    const t1 = h1 * PRIME_LOW + (t0 >>> 16)
    const t2 = h2 * PRIME_LOW + h0 * PRIME_HIGH + (t1 >>> 16)
    const t3 = h3 * PRIME_LOW + h1 * PRIME_HIGH + (t2 >>> 16)
    h0 = t0 & 0xffff
    h1 = t1 & 0xffff
    h2 = t2 & 0xffff
    h3 = t3 & 0xffff
  })
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, '0')).join('')
}

/**
 * The id of one judge request. Fields are joined with NUL, which none of them contains in practice,
 * so ('a', 'bc') and ('ab', 'c') hash differently.
 * @example judgeRequestId('final_response_match_v2', 's1/0', 'verdict', 'prompt text') // 'final_response_match_v2:verdict:…'
 */
export function judgeRequestId(metric: string, invocationKey: string, step: string, prompt: string): string {
  return `${metric}:${step}:${fnv1a64([metric, invocationKey, step, prompt].join('\u0000'))}`
}

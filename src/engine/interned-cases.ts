/**
 * Eval cases shared across sessions: a thousand sessions of one eval set send the same case a
 * thousand times, and each parsed copy (zod output, every invocation and rubric) costs tens of KiB
 * of heap and a zod parse at creation. The parse is kept by the case's JSON text, so equal cases
 * share one parsed (read-only) value. Bounded: the MAX_INTERNED_CASES most recently used texts.
 * A parse that fails is not kept (its problem is rebuilt each time: refused sessions are rare).
 * The case as sent (the session spec's `eval_case`, kept for the session's life) is shared the
 * same way: without it an idle session of a 50-invocation case held 33 KiB of its own copy.
 */
import { EvalCase } from '../adk/eval-set.ts'

/** Distinct eval case texts kept parsed (least recently used dropped first). */
export const MAX_INTERNED_CASES = 256
/** Cases longer than this (characters of JSON) are parsed per session, not kept. */
export const MAX_INTERNED_CASE_CHARS = 1_000_000

const parsed = new Map<string, EvalCase>()

/** EvalCase.safeParse, answered from the shared parse when an equal case was parsed before. */
export function parseEvalCaseShared(raw: unknown): ReturnType<typeof EvalCase.safeParse> {
  let text: string | undefined
  try {
    text = JSON.stringify(raw)
  } catch {
    text = undefined
  }
  const hit = text === undefined ? undefined : parsed.get(text)
  if (hit && text !== undefined) {
    // Most recently used last: the Map's order is the eviction order.
    parsed.delete(text)
    parsed.set(text, hit)
    return { success: true, data: hit } as ReturnType<typeof EvalCase.safeParse>
  }
  const result = EvalCase.safeParse(raw)
  if (result.success && text !== undefined && text.length <= MAX_INTERNED_CASE_CHARS) {
    parsed.set(text, result.data)
    if (parsed.size > MAX_INTERNED_CASES) parsed.delete(parsed.keys().next().value!)
  }
  return result
}

const raws = new Map<string, unknown>()

/**
 * The one shared copy of an eval case as sent, for every valid case equal to it by JSON text
 * (the first one seen, deep-frozen so no session can change it under another); an invalid case,
 * one that cannot be serialised or a longer one than MAX_INTERNED_CASE_CHARS is returned as given.
 * Bounded like the parses: the MAX_INTERNED_CASES most recently used texts.
 * @example shareEvalCase(JSON.parse(body).eval_case) === shareEvalCase(JSON.parse(body).eval_case) // true
 */
export function shareEvalCase(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object') return raw
  let text: string | undefined
  try {
    text = JSON.stringify(raw)
  } catch {
    return raw
  }
  if (text === undefined || text.length > MAX_INTERNED_CASE_CHARS) return raw
  const hit = raws.get(text)
  if (hit !== undefined) {
    raws.delete(text)
    raws.set(text, hit)
    return hit
  }
  if (!parseEvalCaseShared(raw).success) return raw
  raws.set(text, deepFreeze(raw))
  if (raws.size > MAX_INTERNED_CASES) raws.delete(raws.keys().next().value!)
  return raw
}

/** Freezes a JSON value and everything in it, walking with a stack (no recursion). */
function deepFreeze(value: object): object {
  const stack: object[] = [value]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (Object.isFrozen(next)) continue
    Object.freeze(next)
    for (const child of Object.values(next)) if (child !== null && typeof child === 'object') stack.push(child)
  }
  return value
}

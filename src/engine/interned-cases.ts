/**
 * Eval cases shared across sessions: a thousand sessions of one eval set send the same case a
 * thousand times, and each parsed copy (zod output, every invocation and rubric) costs tens of KiB
 * of heap and a zod parse at creation. The parse is kept by the case's JSON text, so equal cases
 * share one parsed (read-only) value. Bounded: the MAX_INTERNED_CASES most recently used texts.
 * A parse that fails is not kept (its problem is rebuilt each time: refused sessions are rare).
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

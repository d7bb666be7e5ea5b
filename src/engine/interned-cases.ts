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

/** One entry per distinct case text: its parse, and the shared copy as sent once one was asked for. */
type Interned = { parsed: EvalCase; raw?: object }
/** By JSON text, least recently used first (the Map's order is the eviction order). */
const byText = new Map<string, Interned>()
/** A shared copy as sent to its parse: a session planned from it needs no second serialisation. */
const byRaw = new WeakMap<object, EvalCase>()

type Lookup = { text?: string; entry?: Interned }

/** The case's JSON text and its entry, if any (touched as most recently used). */
function lookup(raw: unknown): Lookup {
  let text: string | undefined
  try {
    text = JSON.stringify(raw)
  } catch {
    return {}
  }
  if (text === undefined || text.length > MAX_INTERNED_CASE_CHARS) return {}
  const entry = byText.get(text)
  if (entry) {
    byText.delete(text)
    byText.set(text, entry)
  }
  return { text, entry }
}

function remember(text: string, entry: Interned): void {
  byText.set(text, entry)
  if (byText.size > MAX_INTERNED_CASES) byText.delete(byText.keys().next().value!)
}

/** EvalCase.safeParse, answered from the shared parse when an equal case was parsed before. */
export function parseEvalCaseShared(raw: unknown): ReturnType<typeof EvalCase.safeParse> {
  const known = raw !== null && typeof raw === 'object' ? byRaw.get(raw) : undefined
  if (known) return { success: true, data: known } as ReturnType<typeof EvalCase.safeParse>
  const { text, entry } = lookup(raw)
  if (entry) return { success: true, data: entry.parsed } as ReturnType<typeof EvalCase.safeParse>
  const result = EvalCase.safeParse(raw)
  if (result.success && text !== undefined) remember(text, { parsed: result.data })
  return result
}

/**
 * The one shared copy of an eval case as sent, for every valid case equal to it by JSON text
 * (the first one seen, deep-frozen so no session can change it under another); an invalid case,
 * one that cannot be serialised or a longer one than MAX_INTERNED_CASE_CHARS is returned as given.
 * Bounded like the parses (one entry holds both): the MAX_INTERNED_CASES most recently used texts.
 * @example shareEvalCase(JSON.parse(body).eval_case) === shareEvalCase(JSON.parse(body).eval_case) // true
 */
export function shareEvalCase(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object') return raw
  const { text, entry } = lookup(raw)
  if (text === undefined) return raw
  if (entry?.raw) return entry.raw
  let parsed = entry?.parsed
  if (!parsed) {
    const result = EvalCase.safeParse(raw)
    if (!result.success) return raw
    parsed = result.data
  }
  const shared = deepFreeze(raw)
  byRaw.set(shared, parsed)
  if (entry) entry.raw = shared
  else remember(text, { parsed, raw: shared })
  return shared
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

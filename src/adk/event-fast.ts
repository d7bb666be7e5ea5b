/**
 * A hand-written fast path for `AdkEvent.parse` on the live path. The zod schema (with its alias
 * renaming preprocess on every nested object) costs ~100 µs per event; this costs a few.
 *
 * Contract: for plain JSON data (what `JSON.parse` makes) the fast path either returns exactly what
 * `AdkEvent.parse` returns (same keys in the same order, `null` -> a present key holding
 * `undefined`, camelCase aliases renamed with the alias winning over the snake_case spelling,
 * unknown keys kept by reference, `timestamp` ms -> s) or gives up. It gives up on anything it
 * does not handle: a wrong type, a non-finite number, a `__proto__` key, an object that is not
 * plain. Then `parseAdkEvent` asks zod, so every error (and its path) is zod's own.
 * test/unit/adk/event-fast.test.ts checks this differentially against the schema.
 */
import { Content, type Content as ContentType } from './content.ts'
import { AdkEvent, type AdkEvent as AdkEventType, timestampSeconds } from './event.ts'
import { intern } from './intern.ts'

/** Returned by a field reader that does not handle its input. */
const BAIL: unique symbol = Symbol('bail')
type Bail = typeof BAIL
type Reader = (value: unknown) => unknown

/** A field of an ADK model: its snake_case name, its camelCase alias (if different), its reader. */
type Field = { readonly name: string; readonly alias: string | undefined; readonly read: Reader; readonly required: boolean }
type Model = {
  readonly fields: readonly Field[]
  readonly slots: ReadonlyMap<string, number>
  /** The field slots' array between reads (all MISSING); taken while a read uses it. */
  scratch: unknown[] | undefined
}

const OBJECT_PROTO = Object.prototype

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === OBJECT_PROTO
}

const str: Reader = (v) => (typeof v === 'string' ? v : BAIL)
/** An identifier every event of a run repeats (author, invocation id, tool name): one shared copy. */
const name: Reader = (v) => (typeof v === 'string' ? intern(v) : BAIL)
const bool: Reader = (v) => (typeof v === 'boolean' ? v : BAIL)
const any: Reader = (v) => v
// zod's z.number() refuses NaN and ±Infinity (JSON.parse gives Infinity for 1e400).
const timestamp: Reader = (v) => (typeof v === 'number' && Number.isFinite(v) ? timestampSeconds(v) : BAIL)

/** z.record(z.string(), z.unknown()): a fresh object with the same keys and the same values. */
const record: Reader = (v) => {
  if (!isPlain(v)) return BAIL
  const out: Record<string, unknown> = {}
  for (const key in v) {
    if (key === '__proto__') return BAIL
    out[key] = v[key]
  }
  return out
}

const arrayOf = (item: Reader): Reader => (v) => {
  if (!Array.isArray(v)) return BAIL
  const out = new Array<unknown>(v.length)
  for (let i = 0; i < v.length; i++) {
    const r = item(v[i])
    if (r === BAIL) return BAIL
    out[i] = r
  }
  return out
}

function camel(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

/** A model that keeps unknown keys; its fields may be null or absent unless named in `required`. */
function model(shape: Record<string, Reader>, required: readonly string[] = []): Model {
  const fields = Object.entries(shape).map(([name, read]) => {
    const alias = camel(name)
    return { name, alias: alias === name ? undefined : alias, read, required: required.includes(name) }
  })
  const slots = new Map<string, number>()
  fields.forEach((f, i) => {
    slots.set(f.name, 2 * i)
    if (f.alias !== undefined) slots.set(f.alias, 2 * i + 1)
  })
  return { fields, slots, scratch: undefined }
}

/** Marks a field slot whose key the input does not have. */
const MISSING: unique symbol = Symbol('missing')

/**
 * adkObject(shape, 'allow') with optionalField(...) fields, for plain objects. One pass over the
 * input's keys (cheaper than probing every field under both spellings), then fields in shape order.
 */
function readModel(m: Model, input: unknown): Record<string, unknown> | Bail {
  if (!isPlain(input)) return BAIL
  // Every object of every event is read through one of six models: each model's slots array is
  // reused, not made per object. Taken while in use, so a nested read of the same model makes its own.
  const found = m.scratch ?? new Array<unknown>(m.fields.length * 2).fill(MISSING)
  m.scratch = undefined
  const out = readFields(m, input, found)
  // Cleared after the read, so it holds nothing of the event between reads.
  m.scratch = found.fill(MISSING)
  return out
}

/** readModel's work; `found` is all MISSING. */
function readFields(m: Model, input: Record<string, unknown>, found: unknown[]): Record<string, unknown> | Bail {
  // slot 2i holds field i under its snake_case name, slot 2i+1 under its camelCase alias.
  let extras: string[] | undefined
  for (const key in input) {
    const slot = m.slots.get(key)
    if (slot !== undefined) found[slot] = input[key]
    else if (key === '__proto__') return BAIL
    else (extras ??= []).push(key)
  }
  const out: Record<string, unknown> = {}
  for (let i = 0; i < m.fields.length; i++) {
    const f = m.fields[i]!
    // The alias wins when both spellings are present, as with pydantic (and renameAliases).
    let value = found[2 * i + 1]
    if (value === MISSING) value = found[2 * i]
    if (value === MISSING) {
      if (f.required) return BAIL
      continue
    }
    if (value === null || value === undefined) {
      if (f.required) return BAIL
      // A key that was present stays present, holding undefined (zod does the same).
      out[f.name] = undefined
      continue
    }
    const r = f.read(value)
    if (r === BAIL) return BAIL
    out[f.name] = r
  }
  if (extras !== undefined) { for (const key of extras) out[key] = input[key] }
  return out
}

const modelReader = (m: Model): Reader => (v) => readModel(m, v)

// FunctionCall.name is the one required field (z.string(), not optional).
const FUNCTION_CALL = model({ id: str, name, args: record, partial_args: any, will_continue: bool }, ['name'])
const FUNCTION_RESPONSE = model({ id: str, name, response: record, will_continue: bool, scheduling: str })
const PART = model({
  text: str,
  thought: bool,
  thought_signature: str,
  function_call: modelReader(FUNCTION_CALL),
  function_response: modelReader(FUNCTION_RESPONSE),
  inline_data: record,
  file_data: record,
  executable_code: record,
  code_execution_result: record,
  video_metadata: record,
})
const CONTENT = model({ role: str, parts: arrayOf(modelReader(PART)) })
const ACTIONS = model({
  skip_summarization: bool,
  transfer_to_agent: str,
  escalate: bool,
  state_delta: record,
  artifact_delta: record,
})
const EVENT = model({
  id: str,
  invocation_id: name,
  author: name,
  content: modelReader(CONTENT),
  partial: bool,
  turn_complete: bool,
  long_running_tool_ids: arrayOf(str),
  actions: modelReader(ACTIONS),
  branch: name,
  timestamp,
  error_code: str,
  error_message: str,
  finish_reason: str,
  usage_metadata: record,
})

/** The fields each fast model reads, tested equal to the zod models' (adkObject's fieldNames). */
export const FAST_MODEL_FIELDS = {
  event: EVENT.fields.map((f) => f.name),
  actions: ACTIONS.fields.map((f) => f.name),
  content: CONTENT.fields.map((f) => f.name),
  part: PART.fields.map((f) => f.name),
  functionCall: FUNCTION_CALL.fields.map((f) => f.name),
  functionResponse: FUNCTION_RESPONSE.fields.map((f) => f.name),
}

/**
 * The fast path alone: the event as `AdkEvent.parse` would return it, or undefined when the input
 * is outside what the fast path handles (then ask zod: it may still be valid, or it is an error).
 * @example fastAdkEvent({ invocationId: 'e-1', timestamp: 1760000000500 }) // { invocation_id: 'e-1', timestamp: 1760000000.5 }
 */
export function fastAdkEvent(input: unknown): AdkEventType | undefined {
  const r = readModel(EVENT, input)
  return r === BAIL ? undefined : (r as AdkEventType)
}

/**
 * `AdkEvent.safeParse` with the fast path in front: same result, errors always from zod.
 * @example parseAdkEvent(JSON.parse(frame)).success
 */
export function parseAdkEvent(input: unknown): ReturnType<typeof AdkEvent.safeParse> {
  const fast = fastAdkEvent(input)
  return fast === undefined ? AdkEvent.safeParse(input) : { success: true, data: fast }
}

/**
 * `Content.safeParse` with the same fast path in front (an event's `content` is read by it): same
 * result, errors always from zod. The OTLP mapping reads every model message through it.
 * @example parseContent({ role: 'user', parts: [{ text: 'hi' }] }).success // true
 */
export function parseContent(input: unknown): ReturnType<typeof Content.safeParse> {
  const fast = readModel(CONTENT, input)
  return fast === BAIL ? Content.safeParse(input) : { success: true, data: fast as ContentType }
}

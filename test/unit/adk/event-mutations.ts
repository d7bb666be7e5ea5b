/**
 * Seeded random mutations of ADK event JSON for the fast-normaliser differential test: wrong
 * types, nulls, missing and extra keys, camel/snake mixes and duplicates, parts of every kind.
 */

export { seededRandom as rng } from '../../support/prng.ts'

/** A serialisation that also shows key order, undefined values and -0 (JSON.stringify hides them). */
export function exact(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => v === undefined ? '<undefined>' : Object.is(v, -0) ? '<-0>' : v)
}

/**
 * Where two values first differ, or undefined: same prototypes, same own keys in the same order
 * (so present-but-undefined counts), leaves equal by Object.is (so -0 differs from 0).
 */
export function deepDiff(a: unknown, b: unknown, path = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? undefined : `${path}: ${String(a)} vs ${String(b)}`
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: different prototypes`
  const ka = Reflect.ownKeys(a)
  const kb = Reflect.ownKeys(b)
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return `${path}: keys [${ka.map(String)}] vs [${kb.map(String)}]`
  for (const k of ka) {
    const d = deepDiff((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], `${path}.${String(k)}`)
    if (d) return d
  }
  return undefined
}

const camelToSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
const snakeToCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** Every camelCase key, at any depth, spelled snake_case (how sessions store events). */
export function toSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnake)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelToSnake(k), toSnake(v)]))
}

/** Field names of every ADK model the schema reads, in both spellings, plus troublemakers. */
const SNAKE_FIELDS = [
  'id',
  'invocation_id',
  'author',
  'content',
  'partial',
  'turn_complete',
  'long_running_tool_ids',
  'actions',
  'branch',
  'timestamp',
  'error_code',
  'error_message',
  'finish_reason',
  'usage_metadata',
  'role',
  'parts',
  'text',
  'thought',
  'thought_signature',
  'function_call',
  'function_response',
  'inline_data',
  'file_data',
  'executable_code',
  'code_execution_result',
  'video_metadata',
  'name',
  'args',
  'partial_args',
  'will_continue',
  'response',
  'scheduling',
  'skip_summarization',
  'transfer_to_agent',
  'escalate',
  'state_delta',
  'artifact_delta',
]
const KEYS = [...SNAKE_FIELDS, ...SNAKE_FIELDS.map(snakeToCamel), '__proto__', 'constructor', 'toString', 'nodeInfo', 'x_extra', '0', '12']

// Spliced into the JSON text afterwards: values JSON.stringify cannot write.
const INFINITY = '"<<INF>>"'

type Random = () => number
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!

function randomPart(random: Random, depth: number): unknown {
  const kinds: (() => unknown)[] = [
    () => ({ text: pick(random, ['hi', '', 'a\nb']) }),
    () => ({ text: 't', thought: random() < 0.5, thoughtSignature: 'sig' }),
    () => ({ functionCall: { name: 'f', args: { a: 1 }, id: 'c1' } }),
    () => ({ function_call: { name: 'g', args: null, partial_args: [{ x: 1 }], will_continue: true } }),
    () => ({ functionResponse: { id: 'c1', name: 'f', response: { ok: true }, willContinue: false, scheduling: 'WHEN_IDLE' } }),
    () => ({ inlineData: { mimeType: 'image/png', data: 'AA==' } }),
    () => ({ file_data: { file_uri: 'gs://x', mime_type: 'text/plain' } }),
    () => ({ executableCode: { code: 'print(1)', language: 'PYTHON' } }),
    () => ({ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }),
    () => ({ videoMetadata: { fps: 1 } }),
    () => ({ newPartKind: { a: 1 } }),
    () => randomValue(random, depth + 1),
  ]
  return pick(random, kinds)()
}

function randomValue(random: Random, depth = 0): unknown {
  const leaves: (() => unknown)[] = [
    () => null,
    () => true,
    () => 0,
    () => -1.5,
    () => 1760000000500,
    () => 'str',
    () => '',
    () => [],
    () => ({}),
    () => ['a', 'b'],
    () => INFINITY,
  ]
  if (depth > 2) return pick(random, leaves)()
  const nested: (() => unknown)[] = [
    () => ({ [pick(random, KEYS)]: randomValue(random, depth + 1) }),
    () => [randomValue(random, depth + 1)],
    () => ({ parts: [randomPart(random, depth + 1), randomPart(random, depth + 1)] }),
    () => randomPart(random, depth + 1),
  ]
  return random() < 0.6 ? pick(random, leaves)() : pick(random, nested)()
}

type Node = Record<string, unknown> | unknown[]

function containers(value: unknown, out: Node[] = []): Node[] {
  if (typeof value !== 'object' || value === null) return out
  out.push(value as Node)
  for (const v of Object.values(value)) containers(v, out)
  return out
}

function mutateOnce(root: unknown, random: Random): void {
  const node = pick(random, containers(root))
  if (Array.isArray(node)) {
    const op = random()
    if (op < 0.4 && node.length > 0) node[Math.floor(random() * node.length)] = randomValue(random)
    else if (op < 0.7) node.push(randomPart(random, 0))
    else node.splice(0, 1)
    return
  }
  const keys = Object.keys(node)
  const key = keys.length > 0 ? pick(random, keys) : undefined
  const op = Math.floor(random() * 6)
  if (op === 0 && key !== undefined) node[key] = randomValue(random)
  else if (op === 1 && key !== undefined) delete node[key]
  else if (op === 2 && key !== undefined) {
    // Swap spelling: camelCase <-> snake_case, keeping the value.
    const other = key.includes('_') ? snakeToCamel(key) : camelToSnake(key)
    const value = node[key]
    delete node[key]
    node[other] = value
  } else if (op === 3 && key !== undefined) {
    // Both spellings at once, with different values.
    const other = key.includes('_') ? snakeToCamel(key) : camelToSnake(key)
    node[other] = random() < 0.5 ? structuredClone(node[key]) : randomValue(random)
  } else if (op === 4) {
    const extra = pick(random, KEYS)
    // An own __proto__ key is what JSON.parse makes; plain assignment would set the prototype.
    Object.defineProperty(node, extra, { value: randomValue(random), enumerable: true, writable: true, configurable: true })
  } else node.content = { role: pick(random, ['model', 'user', null]), parts: [randomPart(random, 0), randomPart(random, 0)] }
}

/**
 * A mutated copy of `event` as JSON text (parse it to get the input, as the decoder would).
 * @example JSON.parse(mutate({ author: 'a' }, rng(1)))
 */
export function mutate(event: unknown, random: Random): string {
  const copy = JSON.parse(JSON.stringify(event)) as unknown
  const times = 1 + Math.floor(random() * 3)
  for (let i = 0; i < times; i++) mutateOnce(copy, random)
  return JSON.stringify(copy).replaceAll(INFINITY, '1e400')
}

/**
 * The message shapes agents put in telemetry, each to google-genai Content as ADK stores it
 * (snake_case): ADK's own `llm_request` / `llm_response` JSON (snake_case from Python, camelCase
 * from JS), ADK Go's log bodies (`{content: Content}`, `gen_ai.choice` `{index, content}`), and the
 * GenAI semantic conventions' messages (`[{role, parts: [{type: 'text' | 'reasoning' | 'tool_call' |
 * 'tool_call_response' | 'blob' | 'uri', ...}]}]`, roles `assistant` for the model, `tool` for results).
 */
import type { Content, FunctionCall, Part } from '../adk/content.ts'
import { parseContent } from '../adk/event-fast.ts'
import { findJsonBoundsViolation, type JsonBounds } from '../adk/json-bounds.ts'
import { isRecord } from '../adk/json.ts'
import type { AttrValue } from './model.ts'

/** A value that is a JSON string parsed (under the bounds), or the structured value itself. */
export type Parsed = { ok: true; value: unknown } | { ok: false; error: string }

/**
 * An attribute that holds JSON (ADK writes whole requests as one string), parsed and checked
 * against the event JSON bounds before anything walks it. Structured values pass through checked.
 * @example parseJsonAttribute('{"a":1}', { maxJsonDepth: 100, maxStringLength: 1e6 }) // { ok: true, value: { a: 1 } }
 */
export function parseJsonAttribute(value: AttrValue | undefined, bounds: JsonBounds): Parsed | undefined {
  if (value === undefined || value === null) return undefined
  let parsed: unknown = value
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value)
    } catch {
      return { ok: false, error: 'is not JSON' }
    }
  }
  const violation = findJsonBoundsViolation(parsed, bounds)
  if (violation) {
    return {
      ok: false,
      error: violation.kind === 'depth'
        ? `nests deeper than ${bounds.maxJsonDepth} at ${violation.path}`
        : `has a string over ${bounds.maxStringLength} characters at ${violation.path}`,
    }
  }
  return { ok: true, value: parsed }
}

/** google-genai Content in either spelling to ADK's (snake_case); undefined when it is not Content. */
export function toContent(raw: unknown): Content | undefined {
  if (!isRecord(raw)) return undefined
  const parsed = parseContent(raw)
  return parsed.success ? parsed.data : undefined
}

/** Whether content is empty: what ADK writes as `{}` when content capture is off. */
export function isEmptyObject(value: unknown): boolean {
  return isRecord(value) && Object.keys(value).length === 0
}

export function partsOf(content: Content | undefined): Part[] {
  return content?.parts ?? []
}

export function callsOf(content: Content | undefined): FunctionCall[] {
  return partsOf(content).flatMap((p) => (p.function_call ? [p.function_call] : []))
}

/** Arguments as an object: semconv allows a JSON string or a structured value. */
function argsOf(raw: unknown): Record<string, unknown> | undefined {
  if (isRecord(raw)) return raw
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw)
      return isRecord(parsed) ? parsed : { value: parsed }
    } catch {
      return { value: raw }
    }
  }
  return raw === undefined || raw === null ? undefined : { value: raw }
}

/** One semconv message part to a genai Part; parts of unknown type are left out. */
function semconvPart(raw: unknown): Part | undefined {
  if (!isRecord(raw)) return undefined
  const type = raw.type
  if (type === 'text' || type === 'thinking' || type === 'reasoning') {
    const text = typeof raw.content === 'string' ? raw.content : typeof raw.text === 'string' ? raw.text : undefined
    if (text === undefined) return undefined
    return type === 'text' ? { text } : { text, thought: true }
  }
  if (type === 'tool_call' && typeof raw.name === 'string') {
    const call: FunctionCall = { name: raw.name, args: argsOf(raw.arguments) ?? {} }
    if (typeof raw.id === 'string') call.id = raw.id
    return { function_call: call }
  }
  if (type === 'tool_call_response') {
    const result = raw.response ?? raw.result
    const response = isRecord(result) ? result : { result }
    return {
      function_response: {
        ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
        ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
        response,
      },
    }
  }
  if (type === 'blob' && typeof raw.content === 'string') {
    // ADK Go: base64 content, cut at 16 KiB (`truncated`); the bytes are not what any metric reads.
    return { inline_data: { ...(typeof raw.mime_type === 'string' ? { mime_type: raw.mime_type } : {}), data: raw.content } }
  }
  if (type === 'uri' && typeof raw.uri === 'string') {
    return { file_data: { ...(typeof raw.mime_type === 'string' ? { mime_type: raw.mime_type } : {}), file_uri: raw.uri } }
  }
  return undefined
}

/**
 * GenAI semconv messages (`gen_ai.input.messages` / `gen_ai.output.messages`) to Contents.
 * Roles: `assistant` is the model; `tool` carries tool results and is the user's turn as ADK has it.
 * @example semconvMessages([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]) // [{ role: 'user', parts: [{ text: 'hi' }] }]
 */
export function semconvMessages(raw: unknown): Content[] {
  if (!Array.isArray(raw)) return []
  const out: Content[] = []
  for (const message of raw) {
    if (!isRecord(message)) continue
    const role = message.role === 'assistant' || message.role === 'model' ? 'model' : message.role === 'system' ? 'system' : 'user'
    const parts = Array.isArray(message.parts) ? message.parts.map(semconvPart).filter((p): p is Part => p !== undefined) : []
    if (parts.length > 0) out.push({ role, parts })
  }
  return out
}

/** Plain text of a system instruction in any of its shapes (string, Content, parts, semconv list). */
export function instructionText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw
  const parts = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.parts) ? raw.parts : undefined
  if (!parts) return undefined
  const texts = parts.flatMap((p) => (isRecord(p) ? [p.text ?? p.content] : typeof p === 'string' ? [p] : [])).filter((t): t is string =>
    typeof t === 'string'
  )
  return texts.length > 0 ? texts.join('\n') : undefined
}

/**
 * Semconv `gen_ai.tool.definitions` (`[{type: 'function', name, description, parameters}]`) to
 * genai Tools, the shape ADK keeps in `tool_declarations`. genai Tools pass through.
 */
export function toolDeclarations(raw: unknown): unknown[] {
  if (!Array.isArray(raw)) return []
  const declarations = raw.filter((t) => isRecord(t) && typeof t.name === 'string')
  const tools = raw.filter((t) => isRecord(t) && typeof t.name !== 'string')
  if (declarations.length === 0) return tools
  const functionDeclarations = declarations.map((t) => {
    const { type: _type, ...rest } = t as Record<string, unknown>
    return rest
  })
  return [...tools, { function_declarations: functionDeclarations }]
}

/**
 * google-genai's Content, Part, FunctionCall and FunctionResponse, as ADK stores them.
 *
 * Difference from ADK: google-genai forbids unknown keys on these types, which ties a file to one
 * SDK version (every release adds Part fields). evalstream types the fields it reads and keeps any
 * other key as it is, so newer agents' events and files still load.
 */
import * as z from 'zod'
import { type AdkModel, lazyAdkObject, optionalField } from './casing.ts'

/** JSON `null` is how migrated ADK files spell "absent"; treat both the same. */
const optional = optionalField

/** A tool call the model asked for. */
export type FunctionCall = {
  id?: string
  name: string
  /** Absent for JSON `null` or a missing `args`, which ADK reads as None; `{}` is no arguments. */
  args?: Record<string, unknown>
  partial_args?: unknown
  will_continue?: boolean
}
export const FunctionCall: AdkModel<FunctionCall> = lazyAdkObject(
  () => ({
    id: optional(z.string()),
    name: z.string(),
    // `args: null` and a missing `args` are the same to ADK (None), and both differ from `{}`.
    args: optional(z.record(z.string(), z.unknown())),
    partial_args: optional(z.unknown()),
    will_continue: optional(z.boolean()),
  }),
  'allow',
)

/** A tool's answer to a call. */
export type FunctionResponse = {
  id?: string
  name?: string
  response?: Record<string, unknown>
  will_continue?: boolean
  scheduling?: string
}
export const FunctionResponse: AdkModel<FunctionResponse> = lazyAdkObject(
  () => ({
    id: optional(z.string()),
    name: optional(z.string()),
    response: optional(z.record(z.string(), z.unknown())),
    will_continue: optional(z.boolean()),
    scheduling: optional(z.string()),
  }),
  'allow',
)

/** One part of a message: text, a thought, a call, a response, data or code. */
export type Part = {
  text?: string
  thought?: boolean
  thought_signature?: string
  function_call?: FunctionCall
  function_response?: FunctionResponse
  inline_data?: Record<string, unknown>
  file_data?: Record<string, unknown>
  executable_code?: Record<string, unknown>
  code_execution_result?: Record<string, unknown>
  video_metadata?: Record<string, unknown>
}
export const Part: AdkModel<Part> = lazyAdkObject(
  () => ({
    text: optional(z.string()),
    thought: optional(z.boolean()),
    thought_signature: optional(z.string()),
    function_call: optional(FunctionCall),
    function_response: optional(FunctionResponse),
    inline_data: optional(z.record(z.string(), z.unknown())),
    file_data: optional(z.record(z.string(), z.unknown())),
    executable_code: optional(z.record(z.string(), z.unknown())),
    code_execution_result: optional(z.record(z.string(), z.unknown())),
    video_metadata: optional(z.record(z.string(), z.unknown())),
  }),
  'allow',
)

/** A message: who wrote it (`user`, `model`) and its parts. */
export type Content = {
  role?: string
  parts?: Part[]
}
export const Content: AdkModel<Content> = lazyAdkObject(
  () => ({
    role: optional(z.string()),
    parts: optional(z.array(Part)),
  }),
  'allow',
)

/**
 * ADK's text extraction: the texts of the parts that have one, joined with "\n".
 * Thought parts are not filtered out (ADK does not filter them either).
 * @example contentText({ parts: [{ text: 'a' }, { function_call: { name: 'f' } }, { text: 'b' }] }) // 'a\nb'
 */
export function contentText(content: Content | null | undefined): string {
  if (!content?.parts) return ''
  const texts: string[] = []
  for (const part of content.parts) if (part.text) texts.push(part.text)
  return texts.join('\n')
}

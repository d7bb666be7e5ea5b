/**
 * google-genai's Content, Part, FunctionCall and FunctionResponse, as ADK stores them.
 *
 * Difference from ADK: google-genai forbids unknown keys on these types, which ties a file to one
 * SDK version (every release adds Part fields). evalstream types the fields it reads and keeps any
 * other key as it is, so newer agents' events and files still load.
 */
import { z } from 'zod'
import { adkObject, optionalField } from './casing.ts'

/** JSON `null` is how migrated ADK files spell "absent"; treat both the same. */
const optional = optionalField

export const FunctionCall = adkObject(
  {
    id: optional(z.string()),
    name: z.string(),
    // `args: null` and a missing `args` are the same to ADK (None), and both differ from `{}`.
    args: optional(z.record(z.string(), z.unknown())),
    partial_args: optional(z.unknown()),
    will_continue: optional(z.boolean()),
  },
  'allow',
)
export type FunctionCall = z.infer<typeof FunctionCall>

export const FunctionResponse = adkObject(
  {
    id: optional(z.string()),
    name: optional(z.string()),
    response: optional(z.record(z.string(), z.unknown())),
    will_continue: optional(z.boolean()),
    scheduling: optional(z.string()),
  },
  'allow',
)
export type FunctionResponse = z.infer<typeof FunctionResponse>

export const Part = adkObject(
  {
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
  },
  'allow',
)
export type Part = z.infer<typeof Part>

export const Content = adkObject(
  {
    role: optional(z.string()),
    parts: optional(z.array(Part)),
  },
  'allow',
)
export type Content = z.infer<typeof Content>

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

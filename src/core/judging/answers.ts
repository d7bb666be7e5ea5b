/**
 * Reading judge answers: the samples of one request, JSON answers validated with zod (a model or
 * gateway may ignore the response schema: then the caller falls back to ADK's text parser), and
 * the reasons given when nothing could be read.
 */
import type * as z from 'zod'
import type { JudgeAnswer, JudgeSample } from '../criterion.ts'

/** One sample as a criterion sees it: text to parse, a service score, or why it failed. */
export type ReadSample = JudgeSample

/**
 * The samples answered for a request; a missing answer reads as one failed sample.
 * @example samplesFor([{ id: 'a', via: 'gemini', samples: [{ text: 'x' }] }], 'a') // [{ text: 'x' }]
 */
export function samplesFor(answers: readonly JudgeAnswer[], id: string): JudgeSample[] {
  const answer = answers.find((a) => a.id === id)
  if (!answer) return [{ error: `no judge answer for request ${id}` }]
  if (answer.samples.length === 0) return [{ error: `the judge returned no samples for request ${id}` }]
  return answer.samples
}

/** The service that answered a request (undefined if it did not). */
export function viaFor(answers: readonly JudgeAnswer[], id: string): JudgeAnswer['via'] | undefined {
  return answers.find((a) => a.id === id)?.via
}

/** The errors among samples, for a reason when no sample could be used. */
function sampleErrors(samples: readonly JudgeSample[]): string[] {
  const errors: string[] = []
  for (const s of samples) if ('error' in s) errors.push(s.error)
  return errors
}

/**
 * A reason for a null score: the judge errors when every sample failed, otherwise `fallback`.
 * @example nullReason([{ error: 'timeout' }], 'unparseable') // 'all 1 judge sample(s) failed: timeout'
 */
export function nullReason(samples: readonly JudgeSample[], fallback: string): string {
  const errors = sampleErrors(samples)
  if (errors.length > 0 && errors.length === samples.length) {
    return `all ${samples.length} judge sample(s) failed: ${Array.from(new Set(errors)).join('; ')}`
  }
  return fallback
}

function stripCodeFence(text: string): string {
  const trimmed = text.trim()
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(trimmed)
  return fenced ? (fenced[1] ?? '') : trimmed
}

/**
 * The answer as JSON valid for `schema`, or undefined (then use the ADK text parser).
 * @example parseJsonAnswer('```json\n{"a":1}\n```', z.object({ a: z.number() })) // { a: 1 }
 */
export function parseJsonAnswer<S extends z.ZodType>(text: string, schema: S): z.infer<S> | undefined {
  let value: unknown
  try {
    value = JSON.parse(stripCodeFence(text))
  } catch {
    return undefined
  }
  const parsed = schema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

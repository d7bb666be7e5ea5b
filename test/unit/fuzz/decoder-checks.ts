/**
 * Decoder properties for the fuzzer. The ingest decoder never throws, numbers its outputs 0, 1, 2…
 * and gives the same outputs however the body is cut into chunks (a torn frame or a split UTF-8
 * character is the decoder's problem, not the sender's). parseAdkEvent never throws and agrees with
 * the zod schema; the eval set, eval config and result file parsers never throw on any JSON.
 */
import fc from 'fast-check'
import { parseAdkEvent } from '../../../src/adk/event-fast.ts'
import { AdkEvent } from '../../../src/adk/event.ts'
import { parseEvalConfig } from '../../../src/adk/eval-config.ts'
import { parseEvalSet } from '../../../src/adk/parse-eval-set.ts'
import { readEvalSetResult } from '../../../src/adk/results-json.ts'
import { createEventDecoder, type DecoderOutput, type EventFormat } from '../../../src/ingest/index.ts'
import { chunked, corruptBytes, eventsBodyText } from './bodies.ts'
import { errorText } from './route-driver.ts'
import { evalFileText, eventText } from './json-text.ts'

export type DecoderInput = { format: EventFormat; chunks: Uint8Array[] }

export const decoderInput: fc.Arbitrary<DecoderInput> = fc.constantFrom<EventFormat>('json', 'ndjson', 'sse').chain((format) =>
  eventsBodyText(format)
    .chain(corruptBytes)
    .chain(chunked)
    .map((chunks) => ({ format, chunks }))
)

/**
 * What must not depend on chunking: each output's index, kind and message (events by their id).
 * A too_large message may or may not know the frame's full size (the streaming check stops early).
 */
function summary(output: DecoderOutput): string {
  if ('event' in output) {
    return `${output.index} event ${output.event.invocation_id ?? ''} ${output.event.author ?? ''} ${Object.keys(output.raw).length}`
  }
  return `${output.index} ${output.kind} ${output.kind === 'too_large' ? '' : output.message}`
}

function decode(format: EventFormat, chunks: Uint8Array[]): { outputs: string[]; error?: string } {
  const outputs: string[] = []
  try {
    const decoder = createEventDecoder(format, { onEvent: (e) => outputs.push(summary(e)), onIssue: (i) => outputs.push(summary(i)) })
    for (const chunk of chunks) decoder.push(chunk)
    decoder.end()
    return { outputs }
  } catch (error) {
    return { outputs, error: errorText(error) }
  }
}

/** @example checkDecoder({ format: 'sse', chunks: [bytes] }) // [] */
export function checkDecoder({ format, chunks }: DecoderInput): string[] {
  const failures: string[] = []
  const split = decode(format, chunks)
  if (split.error) return [`ingest ${format} decoder threw ${split.error}`]
  const whole = decode(format, [concat(chunks)])
  if (whole.error) failures.push(`ingest ${format} decoder threw on the whole body ${whole.error}`)
  const indexes = split.outputs.map((o) => Number(o.split(' ')[0]))
  if (indexes.some((n, i) => n !== i)) failures.push(`ingest ${format}: outputs numbered ${indexes.slice(0, 10).join(',')}, not 0,1,2…`)
  const differs = split.outputs.findIndex((o, i) => o !== whole.outputs[i])
  if (split.outputs.length !== whole.outputs.length || differs >= 0) {
    failures.push(
      `ingest ${format}: chunking changed the outputs (${split.outputs.length} vs ${whole.outputs.length}; first difference ${
        split.outputs[differs]?.slice(0, 80)
      } vs ${whole.outputs[differs]?.slice(0, 80)})`,
    )
  }
  return failures
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) (out.set(c, at), (at += c.length))
  return out
}

/** Texts that parse as JSON; the others are the JSON parser's business. */
const parsed = (text: fc.Arbitrary<string>) =>
  text.map((t) => {
    try {
      return { text: t, value: JSON.parse(t) as unknown }
    } catch {
      return { text: t, value: undefined }
    }
  })

export const eventValue = parsed(eventText)
export const evalFileValue = parsed(evalFileText)

/** @example checkEventParse({ text: '{}', value: {} }) // [] */
export function checkEventParse({ value }: { value: unknown }): string[] {
  let fast: boolean
  try {
    fast = parseAdkEvent(value).success
  } catch (error) {
    return [`parseAdkEvent threw ${errorText(error)}`]
  }
  let slow: boolean
  try {
    slow = AdkEvent.safeParse(value).success
  } catch (error) {
    return [`AdkEvent.safeParse threw ${errorText(error)}`]
  }
  return fast === slow ? [] : [`parseAdkEvent says ${fast ? 'valid' : 'invalid'}, AdkEvent.safeParse says ${slow ? 'valid' : 'invalid'}`]
}

/** @example checkEvalFiles({ text: '{}', value: {} }) // [] */
export function checkEvalFiles({ text, value }: { text: string; value: unknown }): string[] {
  const failures: string[] = []
  const attempt = (name: string, run: () => unknown) => {
    try {
      run()
    } catch (error) {
      failures.push(`${name} threw ${errorText(error)}`)
    }
  }
  attempt('parseEvalSet', () => parseEvalSet(value, { source: 'fuzz.evalset.json' }))
  attempt('parseEvalConfig', () => parseEvalConfig(value, { source: 'fuzz_config.json' }))
  attempt('readEvalSetResult', () => readEvalSetResult(text, { source: 'fuzz.evalset_result.json' }))
  return failures
}

export const describeDecoderInput = (d: DecoderInput) =>
  `${d.format} bytes=${d.chunks.reduce((n, c) => n + c.length, 0)} chunks=${d.chunks.length} starts ${
    JSON.stringify(new TextDecoder().decode(d.chunks[0]?.subarray(0, 100) ?? new Uint8Array()))
  }`
export const describeText = ({ text }: { text: string }) => `${text.length} chars: ${JSON.stringify(text.slice(0, 160))}`

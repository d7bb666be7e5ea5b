/**
 * Hostile bodies never crash the decoders: whatever the bytes, a decode either answers (spans kept,
 * bad ones rejected) or refuses the request with an OtlpRequestError carrying an HTTP status.
 * Seeded; a small count in `npm test` so the file stays fast on a loaded machine, FUZZ_RUNS for a
 * long run (as test/unit/fuzz).
 * Covers: src/otlp/decode-json.ts, src/otlp/decode-protobuf.ts, src/otlp/protobuf-reader.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeLogsJson,
  decodeLogsProtobuf,
  decodeTracesJson,
  decodeTracesProtobuf,
  DEFAULT_OTLP_LIMITS,
  OtlpRequestError,
} from '../../../src/otlp/index.ts'
import { encodeTracesProtobuf } from './support/encode-protobuf.ts'
import { fixtureText } from './support/fixtures.ts'
import { fuzzRuns } from '../fuzz/seed.ts'

const LIMITS = { ...DEFAULT_OTLP_LIMITS, maxValueDepth: 8 }

function answersOrRefuses(decode: () => unknown): void {
  try {
    decode()
  } catch (error) {
    expect(error).toBeInstanceOf(OtlpRequestError)
    expect([400, 413, 415]).toContain((error as OtlpRequestError).status)
  }
}

const fixtureBytes = encodeTracesProtobuf(JSON.parse(fixtureText('adk-python-v1.jsonl').split('\n')[0]!))

describe('OTLP decoders on hostile input (property)', () => {
  it('protobuf: random bytes, and a real request with bytes flipped or cut, never crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        answersOrRefuses(() => decodeTracesProtobuf(bytes, LIMITS))
        answersOrRefuses(() => decodeLogsProtobuf(bytes, LIMITS))
      }),
      { numRuns: fuzzRuns(400), seed: 7 },
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(fixtureBytes.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        fc.nat(fixtureBytes.length),
        (flips, cut) => {
          const bytes = fixtureBytes.slice(0, cut)
          for (const [at, value] of flips) if (at < bytes.length) bytes[at] = value
          answersOrRefuses(() => decodeTracesProtobuf(bytes, LIMITS))
        },
      ),
      { numRuns: fuzzRuns(400), seed: 8 },
    )
  })

  it('JSON: any JSON value in any OTLP field position never crashes', () => {
    const anything = fc.jsonValue({ maxDepth: 4 })
    const request = fc.record({
      resourceSpans: fc.oneof(
        anything,
        fc.array(
          fc.record({
            resource: anything,
            scopeSpans: fc.oneof(
              anything,
              fc.array(
                fc.record({
                  scope: anything,
                  spans: fc.oneof(
                    anything,
                    fc.array(
                      fc.dictionary(
                        fc.constantFrom(
                          'traceId',
                          'spanId',
                          'parentSpanId',
                          'name',
                          'startTimeUnixNano',
                          'endTimeUnixNano',
                          'attributes',
                          'status',
                        ),
                        anything,
                      ),
                    ),
                  ),
                }),
              ),
            ),
          }),
        ),
      ),
    })
    fc.assert(
      fc.property(request, (body) => {
        answersOrRefuses(() => decodeTracesJson(JSON.stringify(body), LIMITS))
        answersOrRefuses(() => decodeLogsJson(JSON.stringify({ resourceLogs: body.resourceSpans }), LIMITS))
      }),
      { numRuns: fuzzRuns(60), seed: 9 },
    )
  })
})

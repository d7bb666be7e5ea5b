/**
 * An OTLP/HTTP request body to decoded spans or log records: read under the byte limit, gunzipped
 * (`Content-Encoding: gzip`, through the web `DecompressionStream` that Node, Deno and workerd all
 * have) under the decompressed limit, then decoded by its Content-Type (JSON or protobuf).
 */
import { decodeLogsJsonSteps, decodeTracesJsonSteps, drain } from './decode-json.ts'
import { decodeLogsProtobufSteps, decodeTracesProtobufSteps } from './decode-protobuf.ts'
import { otlpLimitName, type OtlpLimits } from './limits.ts'
import { type DecodedLogs, type DecodedTraces, OtlpRequestError } from './model.ts'

export type OtlpEncoding = 'json' | 'protobuf'
export type OtlpBodyHeaders = { contentType: string | null | undefined; contentEncoding?: string | null | undefined }
type Body = ReadableStream<Uint8Array> | Uint8Array | null

/**
 * JSON or protobuf from a Content-Type; undefined for anything else (a 415).
 * @example otlpEncodingOf('application/x-protobuf') // 'protobuf'
 */
export function otlpEncodingOf(contentType: string | null | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json') return 'json'
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf'
  return undefined
}

/** All of a stream's bytes, refused (413) past `max`: `what` names the limit in the message. */
async function readAll(stream: ReadableStream<Uint8Array>, max: number, tooLarge: () => string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > max) {
        await reader.cancel().catch(() => {})
        throw new OtlpRequestError(413, tooLarge())
      }
      chunks.push(value)
    }
  } finally {
    reader.releaseLock()
  }
  return joinChunks(chunks, total)
}

/** `chunks` as one array of `total` bytes (the one chunk itself when there is only one). */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes)
      controller.close()
    },
  })
}

/**
 * The body's plain bytes and how to decode them. 415 for an unknown type or encoding, 413 past
 * either byte limit, 400 for a body that is not valid gzip.
 */
export async function readOtlpBody(
  body: Body,
  headers: OtlpBodyHeaders,
  limits: OtlpLimits,
): Promise<{ encoding: OtlpEncoding; bytes: Uint8Array }> {
  const encoding = otlpEncodingOf(headers.contentType)
  if (!encoding) {
    throw new OtlpRequestError(
      415,
      `Content-Type '${headers.contentType ?? ''}' is not OTLP/HTTP: send application/json or application/x-protobuf`,
    )
  }
  const contentEncoding = (headers.contentEncoding ?? '').trim().toLowerCase()
  if (contentEncoding !== '' && contentEncoding !== 'identity' && contentEncoding !== 'gzip') {
    throw new OtlpRequestError(415, `Content-Encoding '${contentEncoding}' is not supported: send gzip or no encoding`)
  }
  const raw = body instanceof Uint8Array
    ? body
    : body
    ? await readAll(body, limits.maxRequestBytes, () => `the body is over ${otlpLimitName('maxRequestBytes', limits)} bytes`)
    : new Uint8Array()
  if (raw.byteLength > limits.maxRequestBytes) {
    throw new OtlpRequestError(413, `the body is over ${otlpLimitName('maxRequestBytes', limits)} bytes`)
  }
  if (contentEncoding !== 'gzip') return { encoding, bytes: raw }
  try {
    const inflated = streamOf(raw).pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
    const bytes = await readAll(
      inflated,
      limits.maxDecompressedBytes,
      () => `the body inflates past ${otlpLimitName('maxDecompressedBytes', limits)} bytes`,
    )
    return { encoding, bytes }
  } catch (error) {
    if (error instanceof OtlpRequestError) throw error
    throw new OtlpRequestError(400, `the body is not valid gzip: ${(error as Error).message}`)
  }
}

/**
 * What gives the loop back between decode steps: the hosting layer's turn slicer
 * (src/ingest/turn-slicer.ts), named by its shape here since decoding depends on no host.
 */
export type DecodeSlicer = { begin(): void; end(): void; check(): Promise<void> | undefined }

/**
 * Runs decode steps, giving the event loop back between them once a slice has run its time
 * (src/ingest/turn-slicer.ts); without a slicer, at once.
 */
async function run<T>(steps: Generator<void, T>, slicer: DecodeSlicer | undefined): Promise<T> {
  if (!slicer) return drain(steps)
  slicer.begin()
  try {
    for (;;) {
      const next = steps.next()
      if (next.done) return next.value
      const pause = slicer.check()
      if (pause) await pause
    }
  } finally {
    slicer.end()
  }
}

/**
 * A `POST /v1/traces` body to spans; throws `OtlpRequestError` when the whole request is refused.
 * With a slicer, decoding (a JSON body parsed a piece at a time, json-pieces.ts) gives the loop back between slices.
 * @example await decodeTraceRequest(bytes, { contentType: 'application/x-protobuf', contentEncoding: 'gzip' }, DEFAULT_OTLP_LIMITS)
 */
export async function decodeTraceRequest(
  body: Body,
  headers: OtlpBodyHeaders,
  limits: OtlpLimits,
  slicer?: DecodeSlicer,
): Promise<DecodedTraces> {
  const { encoding, bytes } = await readOtlpBody(body, headers, limits)
  return run(encoding === 'json' ? decodeTracesJsonSteps(bytes, limits) : decodeTracesProtobufSteps(bytes, limits), slicer)
}

/** A `POST /v1/logs` body to log records, likewise. */
export async function decodeLogsRequest(
  body: Body,
  headers: OtlpBodyHeaders,
  limits: OtlpLimits,
  slicer?: DecodeSlicer,
): Promise<DecodedLogs> {
  const { encoding, bytes } = await readOtlpBody(body, headers, limits)
  return run(encoding === 'json' ? decodeLogsJsonSteps(bytes, limits) : decodeLogsProtobufSteps(bytes, limits), slicer)
}

/**
 * The protobuf wire format, read only as far as OTLP needs it: varints, fixed64/fixed32, length-
 * delimited fields, skipping unknown fields of every wire type. A truncated or malformed message
 * throws `OtlpRequestError` (400): past a broken length nothing after it can be located.
 */
import { OtlpRequestError } from './model.ts'

const utf8 = new TextDecoder('utf-8', { fatal: false })

export class ProtoReader {
  readonly buf: Uint8Array
  pos: number
  readonly end: number
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf
    this.pos = start
    this.end = end
  }

  get done(): boolean {
    return this.pos >= this.end
  }

  #fail(what: string): never {
    throw new OtlpRequestError(400, `malformed protobuf: ${what} at byte ${this.pos}`)
  }

  /** A varint of up to 53 bits as a number (lengths, tags, enums, booleans). */
  varint(): number {
    let result = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.#fail('truncated varint')
      const byte = this.buf[this.pos++]!
      result += (byte & 0x7f) * scale
      if (byte < 0x80) return result
      scale *= 128
    }
    return this.#fail('varint longer than 10 bytes')
  }

  /** A varint as a signed 64-bit integer (AnyValue.int_value). */
  int64(): bigint {
    let result = 0n
    let shift = 0n
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.#fail('truncated varint')
      const byte = this.buf[this.pos++]!
      result |= BigInt(byte & 0x7f) << shift
      if (byte < 0x80) return BigInt.asIntN(64, result)
      shift += 7n
    }
    return this.#fail('varint longer than 10 bytes')
  }

  #need(bytes: number): void {
    if (this.pos + bytes > this.end) this.#fail(`truncated field (${bytes} bytes needed)`)
  }

  /** fixed64, exactly (nanosecond times exceed 2^53). */
  fixed64(): bigint {
    this.#need(8)
    const value = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getBigUint64(0, true)
    this.pos += 8
    return value
  }

  double(): number {
    this.#need(8)
    const value = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true)
    this.pos += 8
    return value
  }

  /** A length-delimited field's bounds, as a reader over just those bytes. */
  message(): ProtoReader {
    const length = this.varint()
    this.#need(length)
    const sub = new ProtoReader(this.buf, this.pos, this.pos + length)
    this.pos += length
    return sub
  }

  bytes(): Uint8Array {
    const sub = this.message()
    return this.buf.subarray(sub.pos, sub.end)
  }

  /** A string field; `maxLength` refuses one longer than that many UTF-8 bytes before decoding it. */
  string(maxLength = Number.POSITIVE_INFINITY): string | undefined {
    const sub = this.message()
    if (sub.end - sub.pos > maxLength * 3) return undefined // a UTF-16 unit takes at most 3 UTF-8 bytes
    return utf8.decode(this.buf.subarray(sub.pos, sub.end))
  }

  /** The next field's number and wire type. */
  tag(): { field: number; wire: number } {
    const tag = this.varint()
    return { field: Math.floor(tag / 8), wire: tag & 7 }
  }

  skip(wire: number): void {
    if (wire === 0) this.varint()
    else if (wire === 1) (this.#need(8), (this.pos += 8))
    else if (wire === 2) this.message()
    else if (wire === 5) (this.#need(4), (this.pos += 4))
    else this.#fail(`unsupported wire type ${wire}`)
  }
}

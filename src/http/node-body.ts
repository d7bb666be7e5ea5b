/**
 * An upload's body, read from Node's own request message when the server is @hono/node-server
 * (it hands the message to the app as `c.env.incoming`), else from the Request's body stream.
 *
 * Why: node-server builds a WHATWG Request and two ReadableStreams (`Readable.toWeb` inside a
 * pulling stream) the first time a handler touches `body`. Per upload of a few KiB, the Request
 * alone was 3% of the Node server's main thread under load (bench/README.md, "The live path's cost
 * per event"), for bytes that arrive in one or two chunks. Reading the message directly gives the same
 * chunks in the same order, and a message that broke off (the client went away mid-body) fails
 * the read as the stream did. Deno and Workers have no `incoming`: their Request's stream is used.
 */
import type { Context } from 'hono'
import type { BodyReader } from './read-body.ts'

export type { BodyReader }

/** The part of node:http's IncomingMessage read here (typed by shape: this module also runs where there is no node:http). */
type NodeMessage = {
  read(): Uint8Array | null
  resume(): unknown
  on(event: string, listener: (arg?: unknown) => void): unknown
  off(event: string, listener: (arg?: unknown) => void): unknown
  readonly readableDidRead: boolean
  readonly readableEnded: boolean
  readonly complete: boolean
  readonly destroyed: boolean
}

/**
 * A reader of the request's body, or null when it has none.
 * @example const reader = bodyReader(c) // then reader.read() until done
 */
export function bodyReader(c: Context): BodyReader | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming
  // Only a message nothing has read yet: node-server's own stream, once made, owns it.
  if (isUnreadMessage(incoming)) return messageReader(incoming)
  return c.req.raw.body?.getReader() ?? null
}

function isUnreadMessage(value: unknown): value is NodeMessage {
  const m = value as Partial<NodeMessage> | null | undefined
  return typeof m?.read === 'function' && typeof m.on === 'function' && typeof m.off === 'function' &&
    m.readableDidRead === false && m.readableEnded === false && m.destroyed === false
}

/**
 * Reads `message` in paused mode: each `read()` takes everything buffered so far as one chunk.
 * Fails with the message's error, or with "aborted" when it closed before its last byte came.
 */
export function messageReader(message: NodeMessage): BodyReader {
  let ended = false
  let failed: Error | undefined
  let wake: (() => void) | undefined
  const onReadable = () => wake?.()
  const onEnd = () => {
    ended = true
    wake?.()
  }
  const onError = (e?: unknown) => {
    failed ??= e instanceof Error ? e : new Error(String(e))
    wake?.()
  }
  const onClose = () => {
    if (!ended && !message.complete) failed ??= new Error('aborted')
    wake?.()
  }
  message.on('readable', onReadable)
  message.on('end', onEnd)
  message.on('error', onError)
  message.on('close', onClose)
  const detach = () => {
    message.off('readable', onReadable)
    message.off('end', onEnd)
    message.off('error', onError)
    message.off('close', onClose)
  }
  return {
    async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
      for (;;) {
        if (failed) {
          detach()
          throw failed
        }
        const chunk = message.read()
        if (chunk !== null) return { done: false, value: chunk }
        if (ended) {
          detach()
          return { done: true, value: undefined }
        }
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
      }
    },
    cancel(): Promise<void> {
      detach()
      // What is left is read and dropped by Node (node-server drains an unread body after the answer).
      return Promise.resolve()
    },
  }
}

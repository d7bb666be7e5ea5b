/**
 * A small SSE reader for tests: reads a fetch Response body with eventsource-parser and collects
 * messages until the server closes the stream or the test stops it.
 */
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream'

export type Message = { id?: string; event?: string; data: unknown }

function toMessage(m: EventSourceMessage): Message {
  let data: unknown = m.data
  try {
    data = JSON.parse(m.data)
  } catch {
    // not JSON: keep the text
  }
  return { id: m.id, event: m.event, data }
}

/**
 * Every message until the stream ends. `stopWhen` closes early (the test has seen enough).
 * @example const messages = await readSse(await fetch(url))
 */
export async function readSse(response: Response, stopWhen?: (m: Message, all: Message[]) => boolean): Promise<Message[]> {
  const messages: Message[] = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    const message = toMessage(value)
    messages.push(message)
    if (stopWhen?.(message, messages)) {
      await reader.cancel()
      break
    }
  }
  return messages
}

/** An open subscription whose messages can be awaited one condition at a time. */
export function subscribe(response: Response) {
  const messages: Message[] = []
  let waiter: (() => void) | undefined
  let ended = false
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader()
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        messages.push(toMessage(value))
        waiter?.()
      }
    } catch {
      // cancelled or connection dropped: the test looks at what arrived
    } finally {
      ended = true
      waiter?.()
    }
  })()
  return {
    messages,
    /** Resolves once `predicate` holds for the messages so far, or rejects when the stream ends first. */
    async until(predicate: (all: Message[]) => boolean): Promise<Message[]> {
      while (!predicate(messages)) {
        if (ended) throw new Error(`stream ended before the condition held; got ${JSON.stringify(messages.map((m) => m.event))}`)
        await new Promise<void>((resolve) => {
          waiter = resolve
        })
      }
      return messages
    },
    /** Resolves when the server closes the stream. */
    closed: pump.then(() => messages),
    cancel: () => reader.cancel().catch(() => {}),
  }
}

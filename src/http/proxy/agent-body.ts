/**
 * The agent's response body as a stream we own: read only as fast as our client reads (no
 * buffering), cut when the agent stays silent past the idle timeout, and with a failure that is a
 * value the proxy can report, not an error that would throw away what is already queued.
 */

/** What a response body needs to know about the call that produced it. */
export type AgentLink = {
  /** The agent's origin, for messages. */
  origin: string
  /** Ends the upstream call (fetch and body). */
  abort(reason: Error): void
  /** True once our own client has gone away: then a broken body is not the agent's fault. */
  clientGone(): boolean
}

export type AgentBodyOptions = {
  link: AgentLink
  /** Longest wait for the agent's next chunk, in ms. */
  idleTimeoutMs: number
  /**
   * What the stream does when the agent breaks off or idles: `error` passes the failure on (a
   * relayed body); `close` ends normally and leaves the failure to `failure()` (the interleaver
   * reports it as a result frame after the frames already computed).
   */
  onBreak: 'error' | 'close'
  /** Our client cancelled the stream (it went away). */
  onCancel?(): void
}

/**
 * @example
 * const agent = agentBody(response.body, { link, idleTimeoutMs: 120_000, onBreak: 'close' })
 * agent.stream.pipeThrough(new TextDecoderStream()) // ...; agent.failure() once it has closed
 */
export function agentBody(
  upstream: ReadableStream<Uint8Array>,
  options: AgentBodyOptions,
): { stream: ReadableStream<Uint8Array>; failure(): string | undefined } {
  const { link, idleTimeoutMs } = options
  const reader = upstream.getReader()
  let failure: string | undefined
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let timer: ReturnType<typeof setTimeout> | undefined
        const idle = new Promise<'idle'>((resolve) => {
          timer = setTimeout(() => resolve('idle'), idleTimeoutMs)
        })
        try {
          const read = await Promise.race([reader.read(), idle])
          if (read === 'idle') {
            failure = `the agent at ${link.origin} sent nothing for ${idleTimeoutMs} ms (EVALSTREAM_AGENT_IDLE_TIMEOUT_MS)`
          } else if (read.done) {
            return controller.close()
          } else {
            return controller.enqueue(read.value)
          }
        } catch (e) {
          // Our client leaving aborts the call too; the cancel below is the one to handle that.
          if (link.clientGone()) return controller.close()
          failure = `the agent at ${link.origin} broke off its response: ${causeOf(e)}`
        } finally {
          clearTimeout(timer)
        }
        link.abort(new Error(failure))
        reader.cancel(failure).catch(() => {})
        if (options.onBreak === 'error') controller.error(new Error(failure))
        else controller.close()
      },
      async cancel(reason) {
        options.onCancel?.()
        link.abort(new Error('the client went away'))
        await reader.cancel(reason).catch(() => {})
      },
    },
    // Nothing read ahead: the agent is read exactly as fast as our client takes it.
    { highWaterMark: 0 },
  )
  return { stream, failure: () => failure }
}

/**
 * The useful part of a fetch error: undici says "fetch failed" and keeps the reason in `cause`.
 * @example causeOf(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })) // 'fetch failed (connect ECONNREFUSED)'
 */
export function causeOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error ? error.cause : undefined
  const inner = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : undefined
  return inner && inner !== message ? `${message} (${inner})` : message
}
